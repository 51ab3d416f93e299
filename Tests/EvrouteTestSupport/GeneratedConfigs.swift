/// Writes `text` to a fresh temporary file (``temporaryPath(_:)``, named `name`); its path.
public func temporaryConfig(_ text: String, name: String = "config.yaml") -> String {
    let path = temporaryPath(name)
    writeFile(path, text)
    return path
}

/// Configs generated for the tests that need many regions or screens (`check` and `tree` on
/// large layouts): the one place their YAML is spelt.
public enum GeneratedConfig {
    /// One display `main` (100×100) and one screen `home` whose root region (`root`, 100×100)
    /// holds `regions`, one YAML flow mapping each (`{ name: a, frame: [0, 0, 1, 1] }`): the
    /// first region is on line 8.
    public static func oneScreen(regions: [String]) -> String {
        """
        displays: [{ name: main, size: [100, 100] }]
        screens:
          - name: home
            root:
              name: root
              frame: [0, 0, 100, 100]
              regions:
        """ + "\n" + regions.map { "      - " + $0 }.joined(separator: "\n") + "\n"
    }

    /// `count` screens on one 1280×800 display, each presented over the one before.
    public static func presentedScreens(_ count: Int) -> String {
        var lines = ["displays: [{name: main, size: [1280, 800]}]", "screens:"]
        for i in 0..<count {
            let over = i > 0 ? ", presented-over: s\(i - 1)" : ""
            lines.append("  - {name: s\(i), display: main, root: {name: root, frame: [0, 0, 1280, 800]}\(over)}")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
