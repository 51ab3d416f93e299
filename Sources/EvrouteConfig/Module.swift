// Module EvrouteConfig.
