import Testing
import EvrouteChecks

/// The tests' `expect` and `expectEqual` fail a test when they should, and only then.
struct ExpectTests {
    @Test func aFalseConditionAndUnequalValuesAreIssuesAtTheirLine() {
        withKnownIssue {
            expect(1 + 1 == 3, "arithmetic")
        } matching: { issue in
            issue.comments.map(\.rawValue) == ["arithmetic"] && issue.sourceLocation?.line == #line - 2
        }
        withKnownIssue {
            expectEqual([1, 2], [1, 3])
        } matching: { issue in
            issue.comments.map(\.rawValue) == ["[1, 2] is not [1, 3]"] && issue.sourceLocation?.fileID == #fileID
        }
        withKnownIssue {
            expectEqual("a", "b", "why")
        } matching: { issue in
            issue.comments.map(\.rawValue) == [#""a" is not "b": why"#]
        }
    }

    @Test func aTrueConditionAndEqualValuesAreNot() throws {
        expect(1 + 1 == 2)
        expectEqual([1, 2], [1, 2])
        func value() throws -> Int { 4 }
        try expectEqual(value(), 4)
    }
}
