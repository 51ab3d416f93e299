// Module EvrouteRuntime.
