// swift-tools-version:6.2
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
        // One JSON module (values, writer, escaper): the fuzz targets read control requests with it.
        .library(name: "EvrouteJSON", targets: ["EvrouteJSON"]),
        // The daemon: its plugin types (PluginTypes.all: what a config may declare, and their
        // option checks), for whoever reads configs as the daemon does (fuzz targets, benchmarks).
        .library(name: "EvrouteDaemon", targets: ["EvrouteDaemon"]),
        .executable(name: "evroute", targets: ["evroute"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // MARK: Time: event time (`Timestamp`, microseconds of CLOCK_MONOTONIC). Its own module so
        // that the system layer's loop and clock share it with the core without depending on it;
        // the core re-exports it.
        .target(name: "EvrouteTime"),

        // MARK: Core (pure)
        .target(name: "EvrouteCore", dependencies: ["EvrouteTime"]),

        // MARK: Config
        // libyaml's event parser through CYaml; the node tree is built in Swift (no Foundation).
        // Input: the device rules it reads are the input layer's (`DeviceRuleSpec`).
        .target(name: "EvrouteConfig", dependencies: ["EvrouteCore", "EvrouteInput", "EvrouteJSON", "CYaml"]),

        // MARK: C shims over the system libraries
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev",
                       providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev",
                       providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CYaml", pkgConfig: "yaml-0.1",
                       providers: [.apt(["libyaml-dev"])]),
        // Keys → text: keymaps (xkeyboard-config's layouts, from xkb-data), key state, compose.
        .systemLibrary(name: "CXkbcommon", pkgConfig: "xkbcommon",
                       providers: [.apt(["libxkbcommon-dev", "xkb-data"])]),

        // MARK: System: typed descriptors, the errno choke point, the event loop, clock, sockets,
        // child processes, sd_notify, logging. Everything evroute asks of Linux goes through here.
        .target(name: "CLinux"),
        .target(name: "EvrouteSystem", dependencies: [
            "CLinux", "EvrouteTime",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // MARK: JSON: the one JSON module (JSONValue for the control socket and plugin answers,
        // JSONWriter for the trace and plugin events), one string escaper, one number formatter.
        .target(name: "EvrouteJSON"),

        // MARK: Input: devices and recordings as one stream of raw events → core frames
        .target(name: "EvrouteInput", dependencies: ["EvrouteCore", "EvrouteSystem", "CEvdev", "CUdev", "CXkbcommon"]),

        // MARK: Runtime: the session that ties input, routing and output together (dry-run, daemon)
        // MemberImportVisibility (here and in EvrouteDaemon): a module's members are visible only
        // where it is imported, so no dependency's API is picked up through another's import.
        .target(name: "EvrouteRuntime", dependencies: ["CLinux", "EvrouteCore", "EvrouteConfig", "EvrouteInput", "EvrouteSystem", "EvrouteJSON"],
                swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),

        // MARK: Daemon: the composition (start, signals, reload, status), plugins, the control server
        .target(name: "EvrouteDaemon", dependencies: ["CLinux", "EvrouteSystem", "EvrouteCore", "EvrouteConfig", "EvrouteInput", "EvrouteRuntime", "EvrouteJSON"],
                swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),

        // MARK: Command line: evroute's own parser (one table → parsing, help, man page,
        // completions); no Foundation, so the one binary stays small.
        .target(name: "EvrouteCommandLine", dependencies: ["EvrouteCore", "EvrouteConfig"]),
        .executableTarget(name: "evroute", dependencies: [
            "EvrouteCore", "EvrouteConfig", "EvrouteInput", "EvrouteRuntime", "EvrouteDaemon", "EvrouteSystem",
            "EvrouteCommandLine", "EvrouteJSON",
        ]),

        // MARK: Tests
        // What the test targets share (one process runner, one loop-until, one socket line client,
        // paths and scratch directories). A plain target that only test targets depend on: no
        // product links it.
        .target(name: "EvrouteTestSupport", dependencies: ["EvrouteCore", "EvrouteSystem", "CLinux", "EvrouteConfig", "EvrouteInput", "EvrouteDaemon"], path: "Tests/EvrouteTestSupport"),
        // `expect` and `expectEqual`: what the tests check with (the function twins of `#expect`).
        .target(name: "EvrouteChecks", path: "Tests/EvrouteChecks"),
        .testTarget(name: "EvrouteCoreTests", dependencies: ["EvrouteChecks", "EvrouteCore"]),
        .testTarget(name: "EvrouteConfigTests", dependencies: ["EvrouteChecks", "EvrouteTestSupport", "EvrouteConfig", "EvrouteCore", "EvrouteInput", "EvrouteDaemon"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "EvrouteCommandLineTests", dependencies: ["EvrouteChecks", "EvrouteCommandLine"]),
        .testTarget(name: "EvrouteSystemTests", dependencies: ["EvrouteChecks", "EvrouteTestSupport", "EvrouteSystem", "EvrouteCore"]),
        .testTarget(name: "EvrouteInputTests", dependencies: ["EvrouteChecks", "EvrouteTestSupport", "EvrouteInput", "EvrouteConfig", "EvrouteSystem", "EvrouteCore"]),
        .testTarget(name: "EvrouteJSONTests", dependencies: ["EvrouteChecks", "EvrouteJSON"]),
        // The session, dry-run, pipeline and replays in process (what runs the binary is the CLI's).
        .testTarget(name: "EvrouteRuntimeTests", dependencies: ["EvrouteChecks", "EvrouteTestSupport", "EvrouteRuntime", "EvrouteCore", "EvrouteConfig", "EvrouteInput", "EvrouteSystem", "EvrouteJSON"]),
        .testTarget(name: "EvrouteDaemonTests", dependencies: ["EvrouteChecks", "EvrouteTestSupport", "EvrouteDaemon", "EvrouteSystem", "EvrouteRuntime", "EvrouteCore", "EvrouteConfig", "EvrouteJSON"]),
        .testTarget(name: "EvrouteCLITests", dependencies: ["EvrouteChecks", "EvrouteTestSupport", "EvrouteRuntime", "EvrouteCore", "EvrouteConfig", "EvrouteInput", "EvrouteSystem", "EvrouteJSON", "EvrouteDaemon"],
                    exclude: ["Fixtures"]),
    ]
)
