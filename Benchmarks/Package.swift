// swift-tools-version:6.1
// evroute's benchmarks (package-benchmark). A separate package, so the benchmark framework and
// its dependencies never slow the main build. Run: `make bench`, or from this folder
// `swift package --disable-sandbox benchmark`.
import PackageDescription

let package = Package(
    name: "evroute-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "evroute", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "EvrouteBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "EvrouteCore", package: "evroute"),
                .product(name: "EvrouteConfig", package: "evroute"),
                .product(name: "EvrouteInput", package: "evroute"),
                .product(name: "EvrouteRuntime", package: "evroute"),
                .product(name: "EvrouteDaemon", package: "evroute"),
            ],
            path: "Benchmarks/EvrouteBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
