/// evroute's command-line parser: one declarative table of commands, options and arguments,
/// from which parsing, `--help`, usage errors, the man page and shell completions are all
/// derived (so an option is spelled once). Plain Swift, no Foundation: the daemon runs in the
/// same binary and process, and a parser that pulled in FoundationEssentials would double the
/// binary's size.
///
/// Conventions (as getopt_long and git's tools): `--name value` or `--name=value`, `-x value`,
/// flags take no value, `--` ends the options, options may follow positional arguments, a
/// token that looks like a negative number is an argument. Exit codes: 0 ok, 1 errors found,
/// 2 usage errors (``CommandLineExit``).

/// One option (with a value) or flag (without) of a command.
public struct CommandOption: Sendable {
    /// What the option takes.
    public enum Kind: Sendable, Equatable {
        /// No value: present or not.
        case flag
        /// One value (the last one given wins).
        case value
        /// A value, repeatable: every one is kept, in order.
        case repeated
    }

    /// The long name, without dashes (`config` for `--config`).
    public let name: String
    /// A one-letter short name (`o` for `-o`), if any.
    public let short: Character?
    public let kind: Kind
    /// How help and usage name the value (`file`, `path`, `x`).
    public let valueName: String
    /// One line of help.
    public let help: String
    /// The values it accepts, when it is a choice (shown in help, completed by shells, checked
    /// when parsed).
    public let choices: [String]
    /// The default, as help shows it.
    public let defaultValue: String?
    /// What a shell completes the value with.
    public let completion: Completion
    /// Hidden options work but are not in help, the man page or completions.
    public let isHidden: Bool

    /// What shells complete a value with.
    public enum Completion: Sendable, Equatable {
        case none, file, directory
    }

    /// A flag (`--dry-run`).
    public static func flag(_ name: String, short: Character? = nil, help: String, hidden: Bool = false) -> CommandOption {
        CommandOption(name: name, short: short, kind: .flag, valueName: "", help: help, choices: [], defaultValue: nil,
                      completion: .none, isHidden: hidden)
    }

    /// An option with one value (`--config FILE`).
    public static func value(_ name: String, short: Character? = nil, valueName: String, help: String,
                             choices: [String] = [], default defaultValue: String? = nil,
                             completion: Completion = .none, hidden: Bool = false) -> CommandOption {
        CommandOption(name: name, short: short, kind: .value, valueName: valueName, help: help, choices: choices,
                      defaultValue: defaultValue, completion: completion, isHidden: hidden)
    }

    /// A repeatable option (`--replay FILE`…).
    public static func repeated(_ name: String, short: Character? = nil, valueName: String, help: String,
                                completion: Completion = .none) -> CommandOption {
        CommandOption(name: name, short: short, kind: .repeated, valueName: valueName, help: help, choices: [],
                      defaultValue: nil, completion: completion, isHidden: false)
    }

    /// `-o, --output <file>` as help shows it.
    var synopsis: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--" + name
        if kind != .flag { text += " <\(valueName)>" }
        return text
    }
}

/// One positional argument of a command.
public struct CommandArgument: Sendable {
    public let name: String
    public let help: String
    public let isOptional: Bool
    /// Takes every remaining argument.
    public let isRepeated: Bool
    public let completion: CommandOption.Completion

    public init(_ name: String, help: String, optional: Bool = false, repeated: Bool = false,
                completion: CommandOption.Completion = .none) {
        self.name = name
        self.help = help
        isOptional = optional
        isRepeated = repeated
        self.completion = completion
    }

    var synopsis: String {
        var text = "<\(name)>"
        if isRepeated { text += " ..." }
        return isOptional ? "[\(text)]" : text
    }
}

/// A command: its options, arguments, subcommands and what it runs.
public struct Command: Sendable {
    public let name: String
    /// One line: what it does.
    public let abstract: String
    /// More text for help and the man page.
    public let discussion: String
    public let options: [CommandOption]
    public let arguments: [CommandArgument]
    public let subcommands: [Command]
    /// The subcommand that runs when none is named (`evroute` = `evroute route`).
    public let defaultSubcommand: String?
    /// Hidden commands run but are not in help, the man page or completions (`__generate`).
    public let isHidden: Bool
    /// Runs the command with what was parsed; throws ``CommandLineExit`` to end with a status.
    public let run: (@Sendable (ParsedCommandLine) throws -> Void)?

    public init(_ name: String, abstract: String, discussion: String = "", options: [CommandOption] = [],
                arguments: [CommandArgument] = [], subcommands: [Command] = [], defaultSubcommand: String? = nil,
                hidden: Bool = false, run: (@Sendable (ParsedCommandLine) throws -> Void)? = nil) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
        isHidden = hidden
        self.run = run
    }

    func subcommand(_ name: String) -> Command? { subcommands.first { $0.name == name } }
    /// The subcommands help, the man page and completions show.
    var visibleSubcommands: [Command] { subcommands.filter { !$0.isHidden } }
    /// The options help, the man page and completions show.
    var visibleOptions: [CommandOption] { options.filter { !$0.isHidden } }
    /// The default subcommand, when there is one.
    var defaultCommand: Command? { defaultSubcommand.flatMap(subcommand) }
    func option(long: String) -> CommandOption? { options.first { $0.name == long } }
    func option(short: Character) -> CommandOption? { options.first { $0.short == short } }
}

/// How a command line ends: a status, and a message for standard error.
public struct CommandLineExit: Error, Sendable {
    /// The exit status: 0 ok, 1 errors found, 2 usage.
    public let status: Int32
    /// Printed on standard error (nothing when empty).
    public let message: String

    public init(_ status: Int32, _ message: String = "") {
        self.status = status
        self.message = message
    }

    /// Errors were found (a bad config, a failed request): exit 1.
    public static func failure(_ message: String = "") -> CommandLineExit { CommandLineExit(1, message) }
    /// The command line itself is wrong: exit 2.
    public static func usage(_ message: String) -> CommandLineExit { CommandLineExit(2, message) }
}
