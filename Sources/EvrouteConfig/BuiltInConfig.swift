extension ConfigLoader {
    /// The config evroute runs with when no file is given and ``defaultPath`` does not exist:
    /// one 1920×1080 display `main`, every touchscreen and keyboard on it, one screen
    /// `default` whose root region covers the display, and a fallback that logs every event.
    public static let builtInDefaultYAML = """
        # evroute built-in default config
        displays:
          - name: main
            size: [1920, 1080]
        devices:
          - name: touchscreens
            match: { kind: touchscreen }
            display: main
          - name: keyboards
            match: { kind: keyboard }
            display: main
        screens:
          - name: default
            display: main
            root:
              name: root
              frame: [0, 0, 1920, 1080]
        fallback:
          handlers:
            - { plugin: log, on: [any] }

        """
}
