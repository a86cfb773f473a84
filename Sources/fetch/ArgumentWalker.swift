// Walks an argument vector as curl does: bundled short options (-fsSL), glued values (-XPOST,
// -m5, -ofile), `--` ends options, `--no-NAME` turns a switch off, anything else is a URL.
// `-K FILE` splices the file's options in at that point (ConfigFile).

/// Turns arguments into an ``Invocation`` through the ``OptionTable``.
struct ArgumentWalker {
    /// Reads a `-K` file's text (`-` is standard input); injected so tests need no files.
    var readConfig: (String) -> String?
    /// How deep `-K` files include each other (curl stops loops the same way).
    private var depth = 0

    /// A walker reading `-K` files with `read`.
    init(readConfig: @escaping (String) -> String?) {
        self.readConfig = readConfig
    }

    /// The invocation `arguments` (without the program name) ask for.
    static func parse(_ arguments: [String], readConfig: @escaping (String) -> String? = ConfigFile.readText) throws(FetchUsageError) -> Invocation {
        var walker = ArgumentWalker(readConfig: readConfig)
        var options = FetchOptions()
        if let stop = try walker.walk(arguments, into: &options) { return stop }
        // curl says only "try --help" when given nothing at all.
        guard !options.urls.isEmpty else { throw FetchUsageError(description: arguments.isEmpty ? "" : "no URL specified!") }
        try checkMethods(options)
        try checkOutputs(options)
        return .run(options)
    }

    /// curl refuses two ways of choosing the method at once (`-d` with `-F`, `-I` with a body),
    /// with a warning that `-s` hides, and exit 2.
    static func checkMethods(_ options: FetchOptions) throws(FetchUsageError) {
        let data = !options.data.isEmpty && !options.dataInQuery
        let other: String
        if data && !options.form.isEmpty {
            other = "multipart formpost (-F, --form)"
        } else if options.headOnly && (data || !options.form.isEmpty) {
            other = "HEAD (-I, --head)"
        } else {
            return
        }
        let first = data ? "POST \n(-d, --data)" : "multipart formpost \n(-F, --form)"
        let text = "You can only select one HTTP request method! You asked for both \(first) and \(other)."
        let lines = text.split(separator: "\n").map { "Warning: \($0)" }
        throw FetchUsageError(description: text, hint: false, warning: options.silent ? [] : lines)
    }

    /// curl refuses `-C` with `-J`: resuming would append the server's bytes to whatever file
    /// the server names (exit 2, curl 7.88's message).
    static func checkOutputs(_ options: FetchOptions) throws(FetchUsageError) {
        guard options.continueAt != nil && options.remoteHeaderName else { return }
        throw FetchUsageError(description: "--continue-at and --remote-header-name cannot be combined")
    }

    /// Applies `arguments` to `options`; returns an invocation that replaces the run (`-h`, `-V`).
    mutating func walk(_ arguments: [String], into options: inout FetchOptions) throws(FetchUsageError) -> Invocation? {
        var index = 0
        var optionsEnded = false
        /// The argument after the current one, consumed as its value.
        func nextValue(for option: String) throws(FetchUsageError) -> String {
            index += 1
            guard index < arguments.count else { throw .missingValue(option) }
            return arguments[index]
        }
        while index < arguments.count {
            defer { index += 1 }
            let argument = arguments[index]
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                options.urls.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if name == "config" {
                    try include(try nextValue(for: argument), into: &options)
                    continue
                }
                if let spec = OptionTable.long(name) {
                    switch spec.action {
                    case .flag(let apply): apply(&options, true)
                    case .value(let apply): try apply(&options, try nextValue(for: argument))
                    case .stop(let invocation): return invocation
                    }
                } else if name.hasPrefix("no-"), let spec = OptionTable.long(String(name.dropFirst(3))), case .flag(let apply) = spec.action {
                    apply(&options, false)
                } else {
                    throw .unknown(argument)
                }
            } else {
                // A bundle of short options; the first one that takes a value takes the rest of
                // the argument (glued) or the next argument.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    if letter == "K" {
                        try include(letters.isEmpty ? try nextValue(for: "-K") : String(letters), into: &options)
                        break
                    }
                    guard let spec = OptionTable.short(letter) else { throw .unknown(argument) }  // curl names the whole bundle
                    switch spec.action {
                    case .flag(let apply):
                        apply(&options, true)
                        continue
                    case .value(let apply):
                        try apply(&options, letters.isEmpty ? try nextValue(for: "-\(letter)") : String(letters))
                    case .stop(let invocation):
                        return invocation
                    }
                    break
                }
            }
        }
        return nil
    }

    /// `-K FILE`: the file's options, applied where `-K` stands.
    private mutating func include(_ path: String, into options: inout FetchOptions) throws(FetchUsageError) {
        guard depth < 10 else { throw FetchUsageError(description: "config files nested too deep at \(path)") }
        guard let text = readConfig(path) else {
            throw FetchUsageError(status: 26, description: "(26) Failed to open/read config file \(path)", hint: false)
        }
        depth += 1
        defer { depth -= 1 }
        let arguments = try ConfigFile.arguments(text, path: path)
        _ = try walk(arguments, into: &options)
    }
}
