"""ws_output.py - tshark's output as the plugin tests read it, whatever Wireshark prints it with.

The tests in test_plugin.py were written against Wireshark 4.0's text.  Later releases print
the same values differently (seen on Debian sid's 4.6.9):
  * `-T fields` escapes backslashes, tabs, line breaks ('C:\\\\Windows' for C:\\Windows);
  * absolute-time fields in `-T fields`, `-T pdml` (show=) and `-T json` are ISO 8601
    ('2020-02-28T09:03:47.744579000Z'; frame.time '...744579000+0000') where 4.0 prints
    'Feb 28, 2020 09:03:47.744579000 UTC';
  * boolean fields are True/False where 4.0 prints 1/0.
Only whole values are rewritten (a -T fields cell or occurrence, a show="" attribute, a JSON
string): times inside text, such as etl.kv's 'EndTime=2020-02-28T17:15:53.4159885Z', which the
dissector formats itself, stay as they are.
as_wireshark_40() turns such output back into 4.0's form, so every check compares values, not
the release's escaping or time style.  The -V/-O tree text (shownames) did not change and is
left alone.  Used only for releases newer than 4.0 (Env.run in test_plugin.py).
"""
import re

_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
# A whole value: between cell/occurrence separators (tab, the aggregators the tests use: , | \x1e),
# line ends or quotes.
_B = r"(^|(?<=[\t,|\x1e\"]))"
_E = r"(?=$|[\t,|\x1e\"])"
_ISO_TIME = re.compile(_B + r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{9})(Z|\+0000)" + _E,
                       re.M)
_BOOL = re.compile(_B + r"(True|False)" + _E, re.M)
_FIELDS_ESCAPE = re.compile(r"\\([\\tnr])")
_UNESCAPE = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def _time_40(m):
    _, y, mo, d, hh, mm, ss, frac, _ = m.groups()
    return f"{_MONTHS[int(mo) - 1]} {int(d):2d}, {y} {hh}:{mm}:{ss}{frac or ''} UTC"


def newer_than_40(ws_xy):
    major, minor = (int(x) for x in ws_xy.split("."))
    return (major, minor) > (4, 0)


def as_wireshark_40(cmd, out):
    """Output `out` of tshark command line `cmd` (a list), in Wireshark 4.0's form."""
    fmt = next((cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == "-T"), None)
    if fmt == "fields":
        out = _FIELDS_ESCAPE.sub(lambda m: _UNESCAPE[m.group(1)], out)
    if fmt in ("fields", "pdml", "json", "jsonraw", "ek"):
        out = _ISO_TIME.sub(_time_40, out)
        out = _BOOL.sub(lambda m: "1" if m.group(2) == "True" else "0", out)
    return out
