#include "cli/sql_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cli/csv_field.h"
#include "history/sql_query.h"

namespace tt {
namespace {

std::string Text(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return std::get<std::string>(v);
}

// Control characters shown, not sent: a value from a hostile history must not drive the
// terminal (ESC sequences, carriage returns over earlier text). C0 and DEL as \xNN, C1
// (UTF-8 C2 80..9F, CSI among them) as \u00NN; "\n" and "\t" as such.
std::string TerminalText(const std::string& text) {
  std::string shown;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      shown += "\\n";
    } else if (c == '\t') {
      shown += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      shown += fmt::format("\\x{:02x}", c);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      shown += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      shown += text[i];
    }
  }
  return shown;
}

nlohmann::ordered_json Json(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return nullptr;
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::get<std::string>(v);
}

// Columns padded to their widest value, like the sqlite3 shell's column mode.
class Table {
 public:
  explicit Table(const std::vector<std::string>& columns) {
    for (const auto& c : columns) columns_.push_back(TerminalText(c));
    for (const auto& c : columns_) width_.push_back(c.size());
  }
  // Widens the columns to fit a row; keeps it while fewer than `keep` rows are kept.
  void Measure(const std::vector<SqlValue>& row, size_t keep) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < row.size(); ++i) {
      cells.push_back(TerminalText(Text(row[i])));
      width_[i] = std::max(width_[i], cells.back().size());
    }
    ++rows_;
    if (kept_.size() < keep) kept_.push_back(std::move(cells));
  }
  bool AllKept() const { return kept_.size() == rows_; }
  void WriteHeader(std::ostream& out) const {
    Line(columns_, out);
    std::vector<std::string> rule;
    for (size_t w : width_) rule.push_back(std::string(w, '-'));
    Line(rule, out);
  }
  void WriteKept(std::ostream& out) const {
    for (const auto& cells : kept_) Line(cells, out);
  }
  void Write(const std::vector<SqlValue>& row, std::ostream& out) const {
    std::vector<std::string> cells;
    for (const auto& v : row) cells.push_back(TerminalText(Text(v)));
    Line(cells, out);
  }

 private:
  void Line(const std::vector<std::string>& cells, std::ostream& out) const {
    std::string text;
    for (size_t i = 0; i < cells.size(); ++i) text += fmt::format("{}{:<{}}", i ? "  " : "", cells[i], width_[i]);
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  }

  std::vector<std::string> columns_;
  std::vector<size_t> width_;
  std::vector<std::vector<std::string>> kept_;
  size_t rows_ = 0;
};

// Rows kept in memory to print a table in one pass; a longer read-only result is read twice
// (widths, then rows), so that no result costs more memory than this.
constexpr size_t kTableRowsKept = 10'000;

std::string CsvLine(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + CsvField(cells[i]);
  return line + "\n";
}

}  // namespace

int RunSqlCommand(const SqlOptions& o, std::ostream& out) {
  std::vector<std::string> names;
  const auto keep_names = [&](const std::vector<std::string>& columns) { names = columns; };
  int64_t changes = 0;
  if (o.format == "json") {
    bool first = true;
    changes = StreamSql(
        o.db, o.sql, o.write, keep_names,
        [&](const std::vector<SqlValue>& row) {
          nlohmann::ordered_json object = nlohmann::ordered_json::object();
          for (size_t i = 0; i < row.size(); ++i) object[names[i]] = Json(row[i]);
          out << (first ? "[" : ",") << object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
          first = false;
        },
        o.timeout_s);
    if (!names.empty()) out << (first ? "[" : "") << "]\n";
  } else if (o.format == "csv") {
    changes = StreamSql(
        o.db, o.sql, o.write,
        [&](const std::vector<std::string>& columns) {
          names = columns;
          if (!columns.empty()) out << CsvLine(columns);
        },
        [&](const std::vector<SqlValue>& row) {
          std::vector<std::string> cells;
          for (const auto& v : row) cells.push_back(Text(v));
          out << CsvLine(cells);
        },
        o.timeout_s);
  } else {
    std::optional<Table> table;
    const size_t keep = o.write ? SIZE_MAX : kTableRowsKept;  // a write must not run twice
    changes = StreamSql(
        o.db, o.sql, o.write,
        [&](const std::vector<std::string>& columns) {
          names = columns;
          table.emplace(columns);
        },
        [&](const std::vector<SqlValue>& row) { table->Measure(row, keep); }, o.timeout_s);
    if (!names.empty()) {
      table->WriteHeader(out);
      if (table->AllKept())
        table->WriteKept(out);
      else
        StreamSql(
            o.db, o.sql, false, [](const std::vector<std::string>&) {},
            [&](const std::vector<SqlValue>& row) { table->Write(row, out); }, o.timeout_s);
    }
  }
  if (names.empty()) out << fmt::format("{} rows changed\n", changes);
  return 0;
}

}  // namespace tt
