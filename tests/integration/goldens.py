"""Reading TraceEvent's golden decodes (../shared/goldens, format in its README.md): the EVENT
and COUNT lines, and the golden's own way of cutting and printing values."""
import datetime
import re

EVENT_RE = re.compile(r"^EVENT ([\d,.]+): ([^/]+)/(\S+) (.*)$")
COUNT_RE = re.compile(r"^COUNT ([^/]+)/(\S+):(\d+)$")
# TraceEvent's own columns, not fields of the event
HEADER_KEYS = {"PID", "TID", "PName", "ProceNum", "DataLen"}


def read(path):
    """(counts {(provider, event): n}, events [(provider, event, {header}, [(field, value)])]).
    The header holds TraceEvent's columns (PID, TID, PName, ProceNum, DataLen) as printed, and
    "MSec": the event's time in milliseconds since the trace's first event, as a float."""
    counts, events = {}, []
    for line in open(path, encoding="utf-8-sig"):
        line = line.rstrip("\n")
        m = COUNT_RE.match(line.strip())
        if m:
            counts[(m.group(1), m.group(2))] = int(m.group(3))
            continue
        m = EVENT_RE.match(line)
        if not m:
            continue
        header, fields = {"MSec": float(m.group(1).replace(",", ""))}, []
        for part in m.group(4).split("; "):
            part = part.strip().rstrip(";")
            if not part or "=" not in part:
                continue
            k, v = part.split("=", 1)
            if k in HEADER_KEYS:
                header[k] = v
            else:
                fields.append((k, v))
        events.append((m.group(2), m.group(3), header, fields))
    return counts, events


def golden_number(g):
    """An integer as the golden prints it: decimal with thousands separators, or 0x hex; None
    when it is not one."""
    g = g.replace(",", "")
    if re.fullmatch(r"0x[0-9a-fA-F]+", g):
        return int(g, 16)
    if re.fullmatch(r"-?\d+", g):
        return int(g)
    return None


def truncated(g):
    """The golden cuts values longer than 20 characters to 20 and appends '...'."""
    return g.endswith("...") and len(g) == 23


def same_text(g, ours):
    if truncated(g):
        return ours.startswith(g[:-3]) and len(ours) > 20
    return g == ours


def golden_date(g):
    """'yy/MM/dd HH:mm:ss.ff...' -> (datetime to the second, fraction digits shown)."""
    g = g[:-3] if truncated(g) else g
    d, t = g.split(" ")
    sec, _, frac = t.partition(".")
    return datetime.datetime.strptime(d + " " + sec, "%y/%m/%d %H:%M:%S"), frac
