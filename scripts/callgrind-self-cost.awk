# callgrind-self-cost.awk CALLGRIND_OUT — each function that cost anything itself, as
# "INSTRUCTIONS NAME" (raw symbol names: run callgrind with --demangle=no).
# With -v sites=N (callgrind run with --compress-pos=no): instead, one line "SITES CALLS": how
# many call sites (caller, source line, callee) made at least N calls, and how many calls they
# made — under TCG each distinct call site a wake-up runs costs a block lookup, whatever it does.
# "fn=(id) name" opens a function (later "fn=(id)" reopen it); its cost lines follow until the
# next "fn="; the line after each "calls=" is the inclusive cost of that call and is skipped.
/^fn=\(/ { id = $1; sub(/^fn=/, "", id); if (NF > 1) name[id] = $2; cur = name[id]; skip = 0; next }
/^cfn=\(/ { id = $1; sub(/^cfn=/, "", id); if (NF > 1) name[id] = $2; callee = name[id]; next }
/^calls=/ { skip = 1; count = substr($1, 7) + 0; next }
/^[0-9+*-]/ {
	if (skip) { skip = 0; made[cur " " $1 " " callee] += count; cost_of[cur " " $1 " " callee] += $2; next }
	if (cur != "") cost[cur] += $2
	next
}
END {
	if (sites != "") {
		n = 0; calls = 0
		# callgrind counts calls also while collection is off (--toggle-collect): a site whose
		# calls cost under 2 instructions each inside the collected part was called outside it
		# (the Swift runtime's bridge retains while the recording is parsed: many "calls" per frame)
		for (s in made) if (made[s] >= sites + 0 && cost_of[s] >= 2 * made[s]) { n++; calls += made[s] }
		print n, calls
	} else {
		for (f in cost) if (cost[f] > 0) print cost[f], f
	}
}
