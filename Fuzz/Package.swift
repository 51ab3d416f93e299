// swift-tools-version:6.0
// evroute's fuzz targets: libFuzzer through `swiftc -sanitize=fuzzer`, one executable
// per reader of untrusted input plus the router as a state machine. Built and run by
// `make fuzz` (docs/fuzzing.md); a separate package, so the fuzzer's instrumentation never
// reaches the shipped binary.
import PackageDescription

let library: [Target.Dependency] = [
    .product(name: "EvrouteCore", package: "evroute"), .product(name: "EvrouteConfig", package: "evroute"),
    .product(name: "EvrouteInput", package: "evroute"), .product(name: "EvrouteRuntime", package: "evroute"),
    .product(name: "EvrouteJSON", package: "evroute"), .product(name: "EvrouteDaemon", package: "evroute"),
]
// The entry points are libFuzzer's (LLVMFuzzerTestOneInput; `<target>_main` hands argv to its driver).
let fuzzer: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "evroute-fuzz",
    dependencies: [.package(name: "evroute", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: library),
    ] + ["FuzzEvemu", "FuzzConfig", "FuzzControl", "FuzzDecoders", "FuzzRouter"].map {
        .executableTarget(name: $0, dependencies: library + ["FuzzSupport"], swiftSettings: fuzzer)
    }
)
