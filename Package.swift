// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "evroute",
    products: [
        // The pure routing core: geometry, regions, hit-testing, touches, responder chain, gestures.
        // No Linux and no I/O; Swift users link it to drive evroute's model with their own handlers.
        .library(name: "EvrouteCore", targets: ["EvrouteCore"]),
        // YAML layouts → core layouts, with file:line:col errors.
        .library(name: "EvrouteConfig", targets: ["EvrouteConfig"]),
        // Devices and recordings → core frames; the routing session and dry-run (used by Benchmarks/).
        .library(name: "EvrouteInput", targets: ["EvrouteInput"]),
        .library(name: "EvrouteRuntime", targets: ["EvrouteRuntime"]),
        .executable(name: "evroute", targets: ["evroute"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // MARK: Core (pure)
        .target(name: "EvrouteCore"),

        // MARK: Config
        .target(name: "EvrouteConfig", dependencies: [
            "EvrouteCore",
            .product(name: "Yams", package: "Yams"),
        ]),

        // MARK: C shims over the system libraries
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev",
                       providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev",
                       providers: [.apt(["libudev-dev"])]),

        // MARK: Input: devices and recordings as one stream of raw events → core frames
        .target(name: "EvrouteInput", dependencies: ["EvrouteCore", "CEvdev", "CUdev"]),

        // MARK: Runtime: the session that ties input, routing and output together (dry-run, daemon)
        // MemberImportVisibility (here and in EvrouteDaemon): a String method of Foundation's is
        // not picked up through EvrouteConfig's `import Foundation`, so the daemon process
        // runs no Foundation code by accident (docs/daemon.md, "Process structure").
        .target(name: "EvrouteRuntime", dependencies: ["EvrouteCore", "EvrouteConfig", "EvrouteInput"],
                swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),

        // MARK: Daemon: the event loop, plugins, systemd, the control socket
        .target(name: "CLinux"),
        .target(name: "EvrouteDaemon", dependencies: ["CLinux", "EvrouteCore", "EvrouteConfig", "EvrouteInput", "EvrouteRuntime"],
                swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),

        // MARK: Command line
        .executableTarget(name: "evroute", dependencies: [
            "EvrouteCore", "EvrouteConfig", "EvrouteInput", "EvrouteRuntime", "EvrouteDaemon",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // MARK: Tests
        .testTarget(name: "EvrouteCoreTests", dependencies: ["EvrouteCore"]),
        .testTarget(name: "EvrouteConfigTests", dependencies: ["EvrouteConfig", "EvrouteCore"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "EvrouteInputTests", dependencies: ["EvrouteInput", "EvrouteCore"]),
        .testTarget(name: "EvrouteDaemonTests", dependencies: ["EvrouteDaemon", "EvrouteRuntime", "EvrouteCore", "EvrouteConfig"]),
        .testTarget(name: "EvrouteCLITests", dependencies: ["EvrouteRuntime", "EvrouteCore", "EvrouteConfig", "EvrouteInput"]),
    ]
)
