/// One link of a responder chain: a region, a screen, a display, the application or the fallback;
/// or `motion`, the top-level `motion:` handlers, which accelerometer samples and orientation
/// changes go to directly (a chain of one: nothing comes after it). Indices refer to a
/// ``Layout``'s arrays.
public enum ResponderID: Hashable, Sendable {
    case region(Int)
    case screen(Int)
    case display(Int)
    case application
    case fallback
    case motion
}
