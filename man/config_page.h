// ibsmd.yaml(5), written from the sample configuration systemd/ibsmd.yaml:
// that commented file is what operators edit, so it is the one source of
// the keys' documentation. The generator refuses a sample that has drifted
// from the schema (config/): the sample must parse to the built-in defaults
// (config::Config{}), and every key of config::schema_keys() must appear in
// it, as a key or as a commented-out example ("# port_guid: ...").
//
// Layout the reader relies on: the file's opening comment block is the
// description; "name:" at column 0 opens a section; a comment block that
// runs straight into a key documents that key; a comment block followed by
// a blank line is a note of the section.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ibsm::man {

class SampleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::string config_page(std::string_view sample_text, std::string_view sample_name);

} // namespace ibsm::man
