/// One link of a responder chain: a region, a screen, a display, the application or the fallback.
/// Indices refer to a ``Layout``'s arrays.
public enum ResponderID: Hashable, Sendable {
    case region(Int)
    case screen(Int)
    case display(Int)
    case application
    case fallback
}
