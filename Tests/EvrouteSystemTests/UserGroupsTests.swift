import Testing
import EvrouteChecks
#if canImport(Glibc)
import Glibc
#endif
import EvrouteSystem

/// The user database's groups (the control socket's fallback when the kernel has no
/// `SO_PEERGROUPS`), checked against `id -G NAME` for every user this machine has.
@Suite("User database groups")
struct UserGroupsTests {
    /// (name, uid, gid) of every /etc/passwd entry.
    /// The C string at the start of `buffer` (up to its NUL).
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func users() -> [(name: String, uid: uid_t, gid: gid_t)] {
        guard let f = fopen("/etc/passwd", "r") else { return [] }
        defer { fclose(f) }
        var users: [(String, uid_t, gid_t)] = []
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), f) != nil {
            let fields = Self.text(line).split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 4, let uid = uid_t(fields[2]), let gid = gid_t(fields[3]) else { continue }
            users.append((String(fields[0]), uid, gid))
        }
        return users
    }

    /// What `id -G NAME` prints, as numbers.
    static func idGroups(_ name: String) -> [gid_t]? {
        guard let p = popen("id -G '\(name)' 2>/dev/null", "r") else { return nil }
        var out = [CChar](repeating: 0, count: 65536)
        let text = fgets(&out, Int32(out.count), p) != nil ? Self.text(out) : ""
        guard pclose(p) == 0 else { return nil }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { gid_t($0) }
    }

    @Test("UserGroups.of(uid:primaryGroup:) equals id -G for every user in /etc/passwd")
    func matchesId() throws {
        let users = Self.users()
        try #require(!users.isEmpty, "no users in /etc/passwd")
        var compared = 0
        for user in users {
            // a uid listed twice resolves to its first name in both tools; compare those only
            guard UserGroups.userName(user.uid) == user.name, let expected = Self.idGroups(user.name) else { continue }
            let groups = UserGroups.of(uid: user.uid, primaryGroup: user.gid)
            expectEqual(groups.map { Set($0) }, Set(expected), "\(user.name) (uid \(user.uid))")
            expectEqual(groups?.first, user.gid, "\(user.name): the primary group first")
            compared += 1
        }
        expect(compared >= 1)
        print("user database groups: \(compared) users compared with id -G")
    }

    @Test("a uid without an entry has no groups (nil), not an empty membership")
    func unknownUser() {
        var uid: uid_t = 3_999_999_000
        while getpwuid(uid) != nil { uid += 1 }
        expect(UserGroups.userName(uid) == nil)
        expect(UserGroups.of(uid: uid, primaryGroup: 12345) == nil)
    }
}
