// One row format for every option table the core defines (createAttention's in
// attention_options.hpp, the trainer's in train/trainer_options.cpp). A row names an option as
// JavaScript spells it, gives its type, range and unit, and points at its field in the options
// struct (whose initial value is the default). The bindings turn any table into the same
// JavaScript rows (attentionOptionTable, trainerOptionTable), which web/options.js checks with.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "config.hpp"
#include "status.hpp"

namespace headwise {

// kSize: a dimension the core judges against its Limits (refusals in words); kInteger: a whole
// number in [min, max] (max infinite: no upper bound); kNumber: a finite number in (min, max];
// kChoice: one of choices(); kBoolean: true or false.
enum class OptionType { kSize, kInteger, kNumber, kChoice, kBoolean };

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

template <class Options>
struct OptionRow {
  const char* name;  // as JavaScript spells it
  OptionType type;
  double min, max;
  const char* unit;  // "byte" for memory budgets, "" otherwise
  double Options::*number;
  bool Options::*flag;
  std::string Options::*text;
  const char* const* (*choices)();  // kChoice: the allowed values, null-terminated
  const char* about;
};

template <class O>
constexpr OptionRow<O> size_row(const char* name, double lo, double hi, double O::*field,
                                const char* about) {
  return {name, OptionType::kSize, lo, hi, "", field, nullptr, nullptr, nullptr, about};
}
template <class O>
constexpr OptionRow<O> integer_row(const char* name, double lo, double hi, double O::*field,
                                   const char* about, const char* unit = "") {
  return {name, OptionType::kInteger, lo, hi, unit, field, nullptr, nullptr, nullptr, about};
}
template <class O>
constexpr OptionRow<O> number_row(const char* name, double lo, double hi, double O::*field,
                                  const char* about) {
  return {name, OptionType::kNumber, lo, hi, "", field, nullptr, nullptr, nullptr, about};
}
template <class O>
constexpr OptionRow<O> choice_row(const char* name, std::string O::*field,
                                  const char* const* (*choices)(), const char* about) {
  return {name, OptionType::kChoice, 0, 0, "", nullptr, nullptr, field, choices, about};
}
template <class O>
constexpr OptionRow<O> flag_row(const char* name, bool O::*field, const char* about) {
  return {name, OptionType::kBoolean, 0, 0, "", nullptr, field, nullptr, nullptr, about};
}

// The value of row r in o: ok, or what is wrong in words. kSize and kBoolean rows pass here
// (sizes are judged against the Limits by config_from_numbers or the layer specs).
template <class O>
Status check_row(const OptionRow<O>& r, const O& o) {
  const std::string name(r.name);
  switch (r.type) {
    case OptionType::kSize:
    case OptionType::kBoolean:
      return Status::ok();
    case OptionType::kChoice: {
      const std::string& v = o.*r.text;
      std::string known;
      for (const char* const* c = r.choices(); *c; ++c) {
        if (v == *c) return Status::ok();
        known += std::string(known.empty() ? "" : ", ") + "\"" + *c + "\"";
      }
      return Status::error(name + " must be one of " + known + ", got \"" + v + "\"");
    }
    case OptionType::kNumber: {
      const double v = o.*r.number;
      if (std::isfinite(v) && v > r.min && v <= r.max) return Status::ok();
      return Status::error(name + " must be a number in (" + format_number(r.min) + ", " +
                           format_number(r.max) + "], got " + format_number(v));
    }
    case OptionType::kInteger:
      break;
  }
  const double v = o.*r.number;
  if (v == std::floor(v) && v >= r.min && v <= r.max) return Status::ok();  // NaN fails each
  const std::string range =
      std::isinf(r.max) ? "of at least " + format_number(r.min)
                        : "between " + format_number(r.min) + " and " + format_number(r.max);
  return Status::error(name + " must be a whole number " + range + ", got " + format_number(v));
}

}  // namespace headwise
