/// What is being routed, as far as handler matching is concerned.
public enum EventKind: Sendable, Equatable {
    /// A touch phase; `isTap` on an ended phase when the touch was a tap.
    case touch(TouchPhase, isTap: Bool)
    case key(name: String, phase: KeyPhase)
    case action(String)
    /// A gesture recognizer's event (recognized, began, changed, ended, …).
    case gesture(name: String, state: String)
    /// Text typed on a keyboard (``RoutedEvent/text`` holds it).
    case text
    /// An accelerometer's sample, orientation change or shake (``RoutedEvent/motion``).
    case motion(MotionValues)
    /// A display went idle: no input on its devices for its `idle: after-s` (``RoutedEvent/display``).
    case idle
    /// An idle display's next input came: sent before that input is routed.
    case active
}
