# edit.sh: sourced by the corpus setup scripts (tests/data/freertos*/setup.sh), which copy a
# third-party demo and make only README's changes to it.
#   edit FILE OLD NEW   replaces the first OLD in FILE with NEW; fails, naming FILE, when OLD is
#                       not there (the demo changed: the setup must not half-apply)
edit() {
	python3 - "$@" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
if old not in text:
    sys.exit(f"setup.sh: {path}: the text to change is not there: {old[:60]!r}")
open(path, "w").write(text.replace(old, new, 1))
PY
}
