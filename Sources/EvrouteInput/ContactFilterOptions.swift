/// One contact filter a device rule configures (an entry of its `filters:`), opaque here: the
/// filter types read, describe and run them (EvrouteConfig's `ContactFilters`, one file per
/// filter type).
public protocol ContactFilterOptions: Sendable {
    /// Whether `other` is the same filter with the same options (a reload compares rules so).
    func isEqual(to other: any ContactFilterOptions) -> Bool
}

extension ContactFilterOptions where Self: Equatable {
    public func isEqual(to other: any ContactFilterOptions) -> Bool { (other as? Self) == self }
}
