#!/bin/sh
# Runs one libFuzzer target of Fuzz/ (built by `make fuzz` into .build-fuzz) for SECONDS, from
# the inputs it found before (.build-fuzz/corpus/TARGET, where it adds new ones) and its seed
# corpus (Fuzz/Corpus/TARGET), and prints its coverage (libFuzzer's `cov:`, edges reached):
# that of the seed corpus alone, at the start (after loading both corpora: `INITED`) and at the
# end. Fails on a crash, a trap, a broken invariant, a hang of more than 10 s on one input or
# more than 2 GB of memory (the input is left in .build-fuzz/artifacts), and when the coverage
# at the end is not above the seed corpus's (by more than the noise between runs): the fuzzer
# reached nothing the seeds do not.
# See docs/fuzzing.md.
#
# With RUNS, it runs that many inputs from a fixed seed instead of for SECONDS: the same inputs,
# the same coverage and the same verdict however busy the machine is (`make test`).
#
# usage: scripts/fuzz-target.sh TARGET SECONDS [RUNS]   (from the repository's root)
set -u
target=$1
seconds=$2
runs_wanted=${3:-}
if [ -n "$runs_wanted" ]; then
	limit="-runs=$runs_wanted -seed=1" budget="$runs_wanted inputs"
else
	limit="-max_total_time=$seconds" budget="$seconds s"
fi
bin=.build-fuzz/debug/$target
log=.build-fuzz/$target.log
# One hash seed for every run: the same input takes the same paths (a dictionary's order is
# part of them), so coverage figures compare and a failing input replays as it failed.
SWIFT_DETERMINISTIC_HASHING=1
# A trap (a precondition, a broken invariant) is libFuzzer's to catch, so that it saves the input:
# the Swift runtime's backtracer would take the signal first and exit without it.
SWIFT_BACKTRACE=enable=no
export SWIFT_DETERMINISTIC_HASHING SWIFT_BACKTRACE
mkdir -p .build-fuzz/corpus/"$target" .build-fuzz/artifacts
rm -rf .build-fuzz/seed-check && mkdir -p .build-fuzz/seed-check

# The seed corpus alone (libFuzzer writes into its first directory: an empty one, not Fuzz/Corpus).
seeds=$("$bin" -runs=0 .build-fuzz/seed-check Fuzz/Corpus/"$target" 2>&1 | sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p')
"$bin" $limit -rss_limit_mb=2048 -timeout=10 -artifact_prefix=.build-fuzz/artifacts/"$target"- \
	.build-fuzz/corpus/"$target" Fuzz/Corpus/"$target" >"$log" 2>&1
status=$?
start=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$log" | head -n 1)
final=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' "$log" | tail -n 1)
runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$log")
if [ "$status" -ne 0 ]; then
	echo "$target: FAILED (libFuzzer exited with $status; the log is $log, the input in .build-fuzz/artifacts)"
	grep -m 1 -E '(Fatal error|Precondition failed|Assertion failed)' "$log"
	tail -n 40 "$log"
	exit 1
fi
echo "$target: cov ${seeds:-?} (seed corpus), ${start:-?} at start, ${final:-?} at the end (${runs:-?})"
# Growth is more than the noise between runs of the same inputs (a few edges: a dictionary keyed
# by an object's address takes other paths when the addresses differ): 1 % of the seeds', at least 10.
margin=$(( ${seeds:-0} / 100 > 10 ? ${seeds:-0} / 100 : 10 ))
if [ -z "$seeds" ] || [ -z "$final" ] || [ "$final" -lt $(( seeds + margin )) ]; then
	echo "$target: FAILED: its coverage did not grow beyond the seed corpus's (${seeds:-?}, by $margin or more) in $budget:" \
		"the fuzzer reaches nothing the seeds do not (docs/fuzzing.md)"
	exit 1
fi
