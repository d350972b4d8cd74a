"""A strict reader of the Prometheus text exposition format (version 0.0.4),
for metrics.prom as node_exporter's textfile collector would read it
(promtool is not packaged for Debian 12's test environment).

  prom_check.py FILE [NAME{LABELS}=VALUE | NAME{LABELS}>=VALUE]...

Checks: every line is a HELP, TYPE, comment or sample; metric and label
names are valid; label values use only the \\\\ \\" \\n escapes; each family
has at most one TYPE, given before its samples, and its samples are
contiguous; no series twice; values are floats; counters end in _total.
Each further argument is a sample that must be present with that value
(or at least that value). Prints the samples read; exit 1 on a problem.
"""

import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def parse_value(text):
    if text in ("+Inf", "-Inf", "NaN"):
        return float(text.replace("Inf", "inf").replace("NaN", "nan"))
    return float(text)


def parse(text):
    """Returns {(name, frozenset(labels)): value}; raises ValueError."""
    types, samples, done, current = {}, {}, set(), None
    for n, line in enumerate(text.split("\n"), 1):
        if line == "":
            continue
        where = f"line {n}: {line!r}"
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.fullmatch(name):
                    raise ValueError(f"{where}: bad metric name")
                if parts[1] == "TYPE":
                    if name in types:
                        raise ValueError(f"{where}: second TYPE for {name}")
                    if any(k[0] == name for k in samples):
                        raise ValueError(f"{where}: TYPE after samples of {name}")
                    if len(parts) != 4 or parts[3] not in ("counter", "gauge", "histogram", "summary", "untyped"):
                        raise ValueError(f"{where}: bad type")
                    types[name] = parts[3]
            continue
        m = NAME.match(line)
        if not m:
            raise ValueError(f"{where}: no metric name")
        name, i = m.group(0), m.end()
        labels = {}
        if i < len(line) and line[i] == "{":
            i += 1
            while line[i] != "}":
                lm = LABEL.match(line, i)
                if not lm or line[lm.end():lm.end() + 2] != '="':
                    raise ValueError(f"{where}: bad label at column {i}")
                key, i, value = lm.group(0), lm.end() + 2, ""
                while line[i] != '"':
                    if line[i] == "\\":
                        esc = line[i + 1]
                        if esc not in '\\"n':
                            raise ValueError(f"{where}: bad escape \\{esc}")
                        value += "\n" if esc == "n" else esc
                        i += 2
                    else:
                        value += line[i]
                        i += 1
                i += 1
                if key in labels:
                    raise ValueError(f"{where}: label {key} twice")
                labels[key] = value
                if line[i] == ",":
                    i += 1
            i += 1
        rest = line[i:]
        if not rest.startswith(" "):
            raise ValueError(f"{where}: no space before the value")
        fields = rest.split()
        if len(fields) not in (1, 2):
            raise ValueError(f"{where}: expected a value and an optional timestamp")
        value = parse_value(fields[0])
        if name != current:
            if name in done:
                raise ValueError(f"{where}: samples of {name} are not contiguous")
            if current:
                done.add(current)
            current = name
        key = (name, frozenset(labels.items()))
        if key in samples:
            raise ValueError(f"{where}: series twice")
        samples[key] = value
    for name, t in types.items():
        if t == "counter" and not name.endswith("_total"):
            raise ValueError(f"counter {name} does not end in _total")
    return samples, types


def expectation(arg):
    m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?(>=|=)(.+)", arg)
    if not m:
        raise SystemExit(f"bad expectation {arg!r}")
    labels = {}
    if m.group(2):
        for part in m.group(2).split(","):
            k, v = part.split("=", 1)
            labels[k] = v.strip('"')
    return (m.group(1), frozenset(labels.items())), m.group(3), float(m.group(4))


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    try:
        samples, types = parse(text)
    except ValueError as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    bad = 0
    for arg in sys.argv[2:]:
        key, op, want = expectation(arg)
        got = samples.get(key)
        if got is None or (op == "=" and got != want) or (op == ">=" and got < want):
            print(f"{sys.argv[1]}: expected {arg}, got {got}", file=sys.stderr)
            bad += 1
    print(f"{sys.argv[1]}: {len(samples)} samples in {len(types)} families")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
