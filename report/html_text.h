// Text that goes into the HTML report: escaped for HTML, valid UTF-8, and
// JSON that may sit inside a <script> element.
//
// Why: node descriptions are bytes read from the fabric (NodeDescription is
// 64 arbitrary bytes) or from a file; one stray byte must neither inject
// markup nor make the browser mis-decode the page, so every name passes
// through html_escape, which also replaces invalid UTF-8 by U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace ibsm::report {

// `s` with every invalid or overlong UTF-8 sequence (and encoded surrogate)
// replaced by U+FFFD.
std::string valid_utf8(std::string_view s);
// valid_utf8(s) with & < > " ' as character references.
std::string html_escape(std::string_view s);
// JSON text made safe inside <script type="application/json">: every '<'
// (only possible inside strings) becomes \u003c, so "</script>" cannot occur.
std::string script_safe_json(std::string_view json);

} // namespace ibsm::report
