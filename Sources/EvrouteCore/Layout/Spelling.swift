/// "Did you mean …?" for names a person typed: the config reader's unknown keys and values and
/// the run-time control's unknown regions, screens and displays use this one rule.
public enum Spelling {
    /// The longest word or candidate compared, in characters. A longer word is no typo of a
    /// name (no suggestion); a longer candidate is never suggested. This keeps a suggestion's
    /// cost small whatever a config or a request holds (without the bound, a huge value's
    /// distance table was slow to fill and large).
    public static let maximumWordLength = 64

    /// The candidate closest to a misspelt `word`, when it is close enough to be a likely typo
    /// (optimal string alignment distance at most 1, or 2 for candidates of 6 characters or more;
    /// `word` is compared in lower case). Ties go to the earlier candidate. Words and candidates
    /// longer than ``maximumWordLength`` are not compared.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        // (A character is at least one UTF-8 byte: a cheap bound before anything is copied.)
        guard word.utf8.count <= maximumWordLength * 4 else { return nil }
        let w = Array(word.lowercased())
        guard w.count <= maximumWordLength else { return nil }
        var best: (String, Int)?
        for c in candidates where c.utf8.count <= maximumWordLength * 4 {
            let chars = Array(c)
            guard chars.count <= maximumWordLength else { continue }
            let limit = max(1, min(2, chars.count / 3))
            // The distance is at least the difference in length: no table needed past it.
            guard abs(chars.count - w.count) <= limit else { continue }
            let d = distance(w, chars)
            if d <= limit, best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    /// Insertions, deletions, substitutions and adjacent swaps needed to turn `a` into `b`.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
