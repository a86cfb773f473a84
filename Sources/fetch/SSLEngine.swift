// --engine: curl 7.88 on OpenSSL 3 (src/tool_getparam.c, lib/vtls/openssl.c). `--engine list`
// stops reading the command line, prints the engines and exits 0, no transfer; any other name
// is looked up (case-sensitive) when the transfer is set up, for http URLs too: an unknown one
// is 53 "SSL Engine 'X' not found"; `dynamic`, OpenSSL 3's one built-in engine, is found and
// fails to initialise without a shared object to load (66, with OpenSSL's empty error string, as
// this machine's curl prints). An empty name sets no engine. Lariat uses no engine itself.

/// curl's `--engine` outcomes.
enum SSLEngine {
    /// OpenSSL 3's built-in engines: `dynamic` only (the others became providers).
    static let builtIn = ["dynamic"]

    /// `--engine list`'s text.
    static var listText: String {
        (["Build-time engines:"] + (builtIn.isEmpty ? ["  <none>"] : builtIn.map { "  " + $0 })).joined(separator: "\n")
    }

    /// curl's failure for `--engine name` (none for an empty name).
    static func failure(_ name: String) -> FetchSetupError? {
        guard !name.isEmpty else { return nil }
        guard builtIn.contains(name) else { return FetchSetupError(status: 53, description: "(53) SSL Engine '\(name)' not found") }
        return FetchSetupError(status: 66, description: "(66) Failed to initialise SSL Engine '\(name)': error:00000000:lib(0)::reason(0)")
    }
}
