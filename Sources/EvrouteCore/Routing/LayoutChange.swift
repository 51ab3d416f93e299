/// One run-time change a UI makes to the responder chain (docs/ui-control.md): the dynamic part of UIKit's
/// responder chain — screens presented and dismissed, a first responder, views hidden, disabled,
/// moved or replaced — applied to a running ``Router`` with ``Router/apply(_:time:)``.
///
/// Regions are named by their path `screen/root/…/name`, exactly as ``RegionNode/path``
/// spells it; screens and displays by name.
public enum LayoutChange: Sendable, Equatable {
    /// Presents the screen over the top screen of its display.
    case present(screen: String)
    /// Dismisses the top presented screen of a display (nil: the first display).
    case dismiss(display: String?)
    /// Makes the region the first responder of its screen.
    case focus(region: String)
    /// The first responder of a display's active screen gives it up (nil: the first display).
    case resign(display: String?)
    /// `hidden: true`: the region and its subtree are no longer hit, nor can they hold focus.
    case hide(region: String)
    /// `hidden: false`.
    case show(region: String)
    /// `interactive: false`: the region and its subtree are no longer hit, nor can they hold focus.
    case disable(region: String)
    /// `interactive: true`.
    case enable(region: String)
    /// A new frame, in the parent's coordinates.
    case frame(region: String, Rect)
    /// Replaces the region's children (back to front), checked like the config.
    case children(region: String, [RegionSpec])
    /// Sends a nil-targeted action up the chain from the region, or (nil) from the first
    /// responder of the first display's active screen.
    case action(name: String, from: String?)

    /// The region the change is about, if it names one.
    public var regionPath: String? {
        switch self {
        case .focus(let r), .hide(let r), .show(let r), .disable(let r), .enable(let r), .frame(let r, _), .children(let r, _):
            r
        case .action(_, let from): from
        case .present, .dismiss, .resign: nil
        }
    }

    /// What a region change makes of its region (nil for screen, focus and action changes).
    public var regionChangeKind: RegionChangeKind? {
        switch self {
        case .hide: .hidden
        case .show: .shown
        case .disable: .disabled
        case .enable: .enabled
        case .frame: .frame
        case .children: .children
        case .present, .dismiss, .focus, .resign, .action: nil
        }
    }
}

extension LayoutChange: CustomStringConvertible {
    /// The change as `evroute ctl` spells it: `hide home/root/ok`, `frame home/root/ok [0, 0, 10, 10]`, ….
    public var description: String {
        switch self {
        case .present(let s): "present \(s)"
        case .dismiss(let d): "dismiss" + (d.map { " --display \($0)" } ?? "")
        case .focus(let r): "focus \(r)"
        case .resign(let d): "focus --resign" + (d.map { " --display \($0)" } ?? "")
        case .hide(let r): "hide \(r)"
        case .show(let r): "show \(r)"
        case .disable(let r): "disable \(r)"
        case .enable(let r): "enable \(r)"
        case .frame(let r, let f): "frame \(r) \(f)"
        case .children(let r, let c): "regions \(r) (\(c.count) \(c.count == 1 ? "region" : "regions"))"
        case .action(let n, let from): "action \(n)" + (from.map { " --from \($0)" } ?? "")
        }
    }
}

/// What a region change did, as the trace names it (`"change":"hidden"`, …).
public enum RegionChangeKind: String, Sendable, CaseIterable {
    case hidden, shown, disabled, enabled, frame, children
}

/// Why a region cannot become (or stay) first responder: it, or an ancestor, takes no input.
public enum FocusBlock: String, Sendable {
    /// Hidden (UIKit: a hidden view receives no input events).
    case hidden
    /// Not interactive (UIKit: touch, press and keyboard events meant for it are dropped).
    case disabled
}

/// A change that was refused; nothing changed. Its description says why, naming the region,
/// screen or display.
public enum LayoutChangeError: Error, Sendable, CustomStringConvertible {
    /// No region has this path; `suggestion` is the path probably meant.
    case unknownRegion(path: String, suggestion: String?)
    /// No screen has this name.
    case unknownScreen(name: String, screens: [String], suggestion: String?)
    /// No display has this name (`name` nil: the layout has no display at all).
    case unknownDisplay(name: String?, displays: [String], suggestion: String?)
    /// `present`: the screen is already in its display's presentation stack (bottom to top).
    case alreadyPresented(screen: String, display: String, stack: [String])
    /// `dismiss`: the display shows only its root screen (nil: no screen at all).
    case nothingPresented(display: String, screen: String?)
    /// `focus`: the region, or its ancestor `blocker` (a path), is hidden or disabled.
    case cannotFocus(path: String, blocker: String, reason: FocusBlock)
    /// `frame`: x or y outside ±``LayoutLimits/coordinate``, width or height outside 0 … that (NaN too).
    case invalidFrame(path: String, Rect)
    /// The layout with the change does not compile (e.g. new children with a duplicate name);
    /// `errors` are the compiler's, with the places they were written.
    case doesNotCompile(path: String, change: RegionChangeKind, errors: [Diagnostic])

    public var description: String {
        switch self {
        case .unknownRegion(let path, let suggestion):
            var m = "unknown region '\(path)' (a region is named by its path screen/root/…/name)"
            if let suggestion { m += "; did you mean '\(suggestion)'?" }
            return m
        case .unknownScreen(let name, let screens, let suggestion):
            var m = "unknown screen '\(name)' (screens: \(screens.joined(separator: ", ")))"
            if let suggestion { m += "; did you mean '\(suggestion)'?" }
            return m
        case .unknownDisplay(let name, let displays, let suggestion):
            guard let name else { return "the layout has no display" }
            var m = "unknown display '\(name)' (displays: \(displays.joined(separator: ", ")))"
            if let suggestion { m += "; did you mean '\(suggestion)'?" }
            return m
        case .alreadyPresented(let screen, let display, let stack):
            return "screen '\(screen)' is already in the presentation stack of display '\(display)' (\(stack.joined(separator: " < ")))"
        case .nothingPresented(let display, let screen):
            guard let screen else { return "display '\(display)' has no screen to dismiss" }
            return "nothing is presented on display '\(display)': its root screen '\(screen)' stays"
        case .cannotFocus(let path, let blocker, let reason):
            let what = reason == .hidden ? "hidden" : "disabled (interactive: false)"
            if blocker == path { return "region '\(path)' cannot become first responder: it is \(what)" }
            return "region '\(path)' cannot become first responder: its ancestor '\(blocker)' is \(what)"
        case .invalidFrame(let path, let f):
            let c = LayoutLimits.text(LayoutLimits.coordinate)
            return "frame \(f) for region '\(path)': x and y must be between -\(c) and \(c), width and height between 0 and \(c)"
        case .doesNotCompile(let path, let change, let errors):
            let what = change == .children ? "the new children of region '\(path)'" : "the \(change.rawValue) change of region '\(path)'"
            return "\(what) do not fit the layout:\n" + errors.map(\.description).joined(separator: "\n")
        }
    }
}

/// How a region differs from the config since it was loaded (``Router/regionOverrides``):
/// each value is the current one, set by a ``LayoutChange``; nil where it is as loaded.
public struct RegionOverride: Sendable, Equatable {
    /// The region's path.
    public var path: String
    public var hidden: Bool?
    public var interactive: Bool?
    /// The frame (parent coordinates).
    public var frame: Rect?
    /// Its children were replaced (``LayoutChange/children(region:_:)``); overrides of regions
    /// below it are then part of the new children.
    public var childrenReplaced: Bool

    public init(path: String, hidden: Bool? = nil, interactive: Bool? = nil, frame: Rect? = nil, childrenReplaced: Bool = false) {
        self.path = path
        self.hidden = hidden
        self.interactive = interactive
        self.frame = frame
        self.childrenReplaced = childrenReplaced
    }

    var isEmpty: Bool { hidden == nil && interactive == nil && frame == nil && !childrenReplaced }
}

/// The router's run-time state by name, for `ctl state` and `status`.
public struct RouterState: Sendable, Equatable {
    public struct Display: Sendable, Equatable {
        public var name: String
        /// Screen names, bottom (the root screen) to top (the active one).
        public var stack: [String]
        /// The first responder (a region path) of the active screen, if any.
        public var firstResponder: String?
    }

    public struct Screen: Sendable, Equatable {
        public var name: String
        public var display: String
        /// Its first responder's path, if any.
        public var firstResponder: String?
    }

    /// Every display, in layout order.
    public var displays: [Display]
    /// Every screen, in layout order.
    public var screens: [Screen]
    /// Regions changed since the config was loaded, in layout order.
    public var changedRegions: [RegionOverride]
}
