/**
 * awk programs the restic containers run on restic's JSON output. The image has a POSIX shell
 * and awk (busybox) but no JSON tool, so these rely only on POSIX awk and on the shape restic's
 * JSON encoder gives: one key/value order per message type, every `"` inside a string escaped.
 * A key pattern such as `"time":"` therefore only ever matches the key itself.
 */

/**
 * Reads `restic snapshots --json` and prints `<id> <time>` of the newest snapshot taken at or
 * before the cutoff (`cutoff_s` Unix seconds and `cutoff_ns` nanoseconds; no cutoff when
 * `cutoff_s` is empty), or nothing. Times are compared as instants whatever UTC offset each
 * snapshot was recorded with. In each snapshot object `time` comes first and `id` after it.
 */
export const PICK_SNAPSHOT_AWK = `
function days(y, m, d) {
  if (m <= 2) { y -= 1; m += 12 }
  return 365 * y + int(y / 4) - int(y / 100) + int(y / 400) + int((153 * (m - 3) + 2) / 5) + d - 719469
}
function instant(t,    rest, frac, offset) {
  if (t !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/) return 0
  rest = substr(t, 20)
  frac = ""
  if (substr(rest, 1, 1) == ".") {
    rest = substr(rest, 2)
    while (rest ~ /^[0-9]/) { frac = frac substr(rest, 1, 1); rest = substr(rest, 2) }
  }
  if (rest == "Z" || rest == "z") offset = 0
  else if (rest ~ /^[-+][0-9][0-9]:[0-9][0-9]$/) {
    offset = substr(rest, 2, 2) * 3600 + substr(rest, 5, 2) * 60
    if (substr(rest, 1, 1) == "-") offset = -offset
  } else return 0
  sec = days(substr(t, 1, 4) + 0, substr(t, 6, 2) + 0, substr(t, 9, 2) + 0) * 86400 + substr(t, 12, 2) * 3600 + substr(t, 15, 2) * 60 + substr(t, 18, 2) - offset
  nsec = substr(frac "000000000", 1, 9) + 0
  return 1
}
{ text = text $0 }
END {
  n = split(text, parts, /"time":"/)
  found = 0
  for (i = 2; i <= n; i++) {
    t = substr(parts[i], 1, index(parts[i], "\\"") - 1)
    if (!match(parts[i], /"id":"[0-9a-f]+"/)) continue
    id = substr(parts[i], RSTART + 6, RLENGTH - 7)
    if (!instant(t)) continue
    if (cutoff_s != "" && (sec > cutoff_s + 0 || (sec == cutoff_s + 0 && nsec > cutoff_ns + 0))) continue
    if (!found || sec > best_s || (sec == best_s && nsec >= best_ns)) {
      found = 1; best_id = id; best_t = t; best_s = sec; best_ns = nsec
    }
  }
  if (found) print best_id, best_t
}
`;

/**
 * Reads `restic ls --json` and prints up to `count` regular files' paths, one per line, drawn
 * uniformly at random (reservoir sampling; `seed` fixes the draw). Paths JSON had to escape, and
 * paths with glob characters restic would read as a pattern, are left out of the draw.
 */
export const SAMPLE_FILES_AWK = `
BEGIN { if (seed != "") srand(seed); else srand(); count += 0; seen = 0 }
/"type":"file"/ {
  if (!match($0, /"path":"[^"]*"/)) next
  path = substr($0, RSTART + 8, RLENGTH - 9)
  if (index(path, "\\\\") || index(path, "*") || index(path, "?") || index(path, "[")) next
  seen++
  if (seen <= count) picked[seen] = path
  else { slot = int(rand() * seen) + 1; if (slot <= count) picked[slot] = path }
}
END { for (i = 1; i <= seen && i <= count; i++) print picked[i] }
`;

/**
 * Reads `restic restore --json` output and prints the restore Job's result line from restic's
 * summary, with the snapshot given as `id` and `time`; prints nothing without a summary.
 */
export const RESTORE_RESULT_AWK = `
function counter(line, key) {
  if (match(line, "\\"" key "\\":[0-9]+")) return substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
  return 0
}
/"message_type":"summary"/ { summary = $0 }
END {
  if (summary == "") exit
  printf "{\\"snapshot_id\\":\\"%s\\",\\"snapshot_time\\":\\"%s\\",\\"files_restored\\":%s,\\"bytes_restored\\":%s}\\n", id, time, counter(summary, "files_restored"), counter(summary, "bytes_restored")
}
`;
