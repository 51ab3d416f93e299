import EvrouteCore
import EvrouteInput

extension SpecReader {
    /// The keys `filters:` takes: one per filter type (``TouchFrameFilters/types``).
    static var filterKeys: [String] { LayoutSchema.filters.keyNames }

    /// A device rule's `filters:`: each filter type reads its own key (in the order of their
    /// names, as the errors come), and the filters configured are kept in the order they run.
    func touchFilters(_ node: YAMLNode) -> [any ContactFilterOptions] {
        guard let f = fields(node, "'filters'", known: Self.filterKeys) else { return [] }
        var read: [(order: Int, filter: any ContactFilterOptions)] = []
        for (order, type) in TouchFrameFilters.types.enumerated().sorted(by: { $0.element.key.name < $1.element.key.name }) {
            guard let value = f[type.key.name], let filter = type.read(value, self) else { continue }
            read.append((order, filter))
        }
        return read.sorted { $0.order < $1.order }.map(\.filter)
    }

    /// Each rule's filters checked against its display (the one it names, or the only one).
    func checkFilters(_ spec: LayoutSpec) {
        for rule in spec.deviceRules where !rule.filters.isEmpty {
            let display = rule.display.map { name in spec.displays.first { $0.name == name } }
                ?? (spec.displays.count == 1 ? spec.displays.first : nil)
            guard let display else { continue }
            for case let filter as any ContactFilterType in rule.filters { filter.check(display: display, self) }
        }
    }
}
