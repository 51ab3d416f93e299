extension Router {
    struct KeyKey: Hashable {
        var device: DeviceID
        var code: Int
    }

    struct HeldKey {
        /// The key's name, from its down (a cancel on unplug names the key with it).
        var name: String
        var start: ResponderID?
        var region: Int?
        var layout: Layout
        var display: Int
        /// The forwarding handler that took the down (``HandlerBinding/forwards``): the up goes
        /// to it, and repeats go nowhere (the compositor behind it repeats keys itself).
        var forwardedTo: Taker?
        /// Whether the key types text someone takes: it routes as a typing key (no forwarder
        /// takes it) and its text goes after it.
        var isText = false
        /// The chord modifiers held when it went down: every phase routes with them.
        var modifiers: KeyModifiers = []
        /// A forwarded modifier whose up was already sent to its forwarder (a chord partner
        /// was kept): its real up is not routed again.
        var released = false
    }
}

/// The keys held down, by device and key code, with what their later phases route by (where
/// the down started, who it was forwarded to, whether it types text, its chord modifiers).
/// A key is held from its down to its up or cancel.
struct KeyState {
    typealias KeyKey = Router.KeyKey

    var held: [KeyKey: Router.HeldKey] = [:]

    /// Forgets a device's held keys and returns them in key-code order: the same order on
    /// every run (a dictionary's order is not).
    mutating func release(ofDevice id: DeviceID) -> [(key: KeyKey, held: Router.HeldKey)] {
        let mine = held.filter { $0.key.device == id }.sorted { $0.key.code < $1.key.code }
        for (key, _) in mine { held[key] = nil }
        return mine.map { (key: $0.key, held: $0.value) }
    }

    /// The devices with a key held.
    var devices: Set<DeviceID> { Set(held.keys.map(\.device)) }
}
