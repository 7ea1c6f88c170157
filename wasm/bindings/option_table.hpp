// Any of the core's option tables (option_row.hpp) as JavaScript reads it, and as the Embind
// value_object it crosses back as: one function each for createAttention's table and the
// trainer's, so both come out in the same row format.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstddef>

#include "boundary.hpp"
#include "option_row.hpp"

namespace headwise::bindings {

inline emscripten::val string_list(const char* const* names) {
  emscripten::val list = emscripten::val::array();
  for (const char* const* n = names; *n; ++n) list.call<void>("push", text(*n));
  return list;
}

// [{ name, type, min, max, unit, default, choices, about }]; type: "size" (judged by the core),
// "integer", "number", "choice" or "boolean"; an unbounded max is null; defaults are the
// options struct's initial values.
template <class Options>
emscripten::val option_rows_value(const OptionRow<Options>* rows, std::size_t count) {
  using emscripten::val;
  const Options defaults;
  val out = val::array();
  for (std::size_t i = 0; i < count; ++i) {
    const OptionRow<Options>& r = rows[i];
    val row = val::object();
    row.set(text("name"), text(r.name));
    row.set(text("about"), text(r.about));
    switch (r.type) {
      case OptionType::kSize:
      case OptionType::kInteger:
      case OptionType::kNumber:
        row.set(text("type"), text(r.type == OptionType::kSize      ? "size"
                                   : r.type == OptionType::kInteger ? "integer"
                                                                    : "number"));
        row.set(text("min"), r.min);
        row.set(text("max"), std::isinf(r.max) ? val::null() : val(r.max));
        row.set(text("unit"), text(r.unit));
        row.set(text("default"), defaults.*r.number);
        break;
      case OptionType::kChoice:
        row.set(text("type"), text("choice"));
        row.set(text("choices"), string_list(r.choices()));
        row.set(text("default"), text((defaults.*r.text).c_str()));
        break;
      case OptionType::kBoolean:
        row.set(text("type"), text("boolean"));
        row.set(text("default"), defaults.*r.flag);
        break;
    }
    out.call<void>("push", row);
  }
  return out;
}

// The value_object's fields are the table's rows: one list of names, in C++.
template <class Options>
void register_option_fields(const char* type_name, const OptionRow<Options>* rows,
                            std::size_t count) {
  emscripten::value_object<Options> fields(type_name);
  for (std::size_t i = 0; i < count; ++i) {
    if (rows[i].number) fields.field(rows[i].name, rows[i].number);
    if (rows[i].flag) fields.field(rows[i].name, rows[i].flag);
    if (rows[i].text) fields.field(rows[i].name, rows[i].text);
  }
}

}  // namespace headwise::bindings
