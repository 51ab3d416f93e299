# callgrind-self-cost.awk CALLGRIND_OUT — each function that cost anything itself, as
# "INSTRUCTIONS NAME" (raw symbol names: run callgrind with --demangle=no).
# "fn=(id) name" opens a function (later "fn=(id)" reopen it); its cost lines follow until the
# next "fn="; the line after each "calls=" is the inclusive cost of that call and is skipped.
/^fn=\(/ { id = $1; sub(/^fn=/, "", id); if (NF > 1) name[id] = $2; cur = name[id]; skip = 0; next }
/^cfn=\(/ { id = $1; sub(/^cfn=/, "", id); if (NF > 1) name[id] = $2; next }
/^calls=/ { skip = 1; next }
/^[0-9+*-]/ { if (skip) { skip = 0; next } if (cur != "") cost[cur] += $2; next }
END { for (f in cost) if (cost[f] > 0) print cost[f], f }
