// Event time (`Timestamp`, `Timestamp.Duration`) is its own module, EvrouteTime, so the system
// layer's loop and clock use the same type without depending on the routing core. It is part of
// the core's API (every input and routed event carries one), so the core re-exports it: who
// imports EvrouteCore has it.
@_exported import EvrouteTime
