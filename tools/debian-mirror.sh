#!/bin/sh
# Print the Debian archive this machine's apt is configured with: the first
# source (deb822 *.sources or one-line *.list, enabled files only) that
# serves the machine's own release with component main, skipping the
# security archive. debootstrap roots are made from it, so no host is named
# in the project's files. RPMIX_DEBIAN_MIRROR overrides it.
#
# Exit status 1, with a line on stderr, when apt names no such source.
if [ -n "${RPMIX_DEBIAN_MIRROR:-}" ]; then
    echo "$RPMIX_DEBIAN_MIRROR"
    exit 0
fi
codename=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || codename=bookworm
uri=$(
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        case $f in
        *.sources)
            # deb822 stanzas: blank-line separated "Field: value" lines.
            awk -v want="$codename" '
                function flush() {
                    if (types ~ /(^| )deb( |$)/ && comps ~ /(^| )main( |$)/ && enabled != "no") {
                        n = split(suites, s, " ")
                        for (i = 1; i <= n; i++) if (s[i] == want) { split(uris, u, " "); print u[1]; break }
                    }
                    types = uris = suites = comps = ""; enabled = ""
                }
                /^[ \t]*#/ { next }
                /^[ \t]*$/ { flush(); next }
                {
                    key = tolower($1); sub(/:$/, "", key)
                    val = $0; sub(/^[^:]*:[ \t]*/, "", val)
                    if (key == "types") types = val
                    else if (key == "uris") uris = val
                    else if (key == "suites") suites = val
                    else if (key == "components") comps = val
                    else if (key == "enabled") enabled = tolower(val)
                }
                END { flush() }' "$f"
            ;;
        *)
            # one-line form: deb [options] URI suite component...
            awk -v want="$codename" '
                $1 == "deb" {
                    i = 2
                    if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                    if ($(i + 1) != want) next
                    for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; next }
                }' "$f"
            ;;
        esac
    done | grep -v -- '-security' | head -n 1
)
if [ -z "$uri" ]; then
    echo "debian-mirror: apt names no source of '$codename' with component main (set RPMIX_DEBIAN_MIRROR)" >&2
    exit 1
fi
echo "$uri"
