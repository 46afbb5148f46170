#include "cli/sql_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
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

nlohmann::ordered_json Json(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return nullptr;
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::get<std::string>(v);
}

// Columns padded to their widest value, like the sqlite3 shell's column mode.
void WriteTable(const SqlResult& r, std::ostream& out) {
  std::vector<size_t> width;
  for (const auto& c : r.columns) width.push_back(c.size());
  for (const auto& row : r.rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], Text(row[i]).size());
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t i = 0; i < cells.size(); ++i) text += fmt::format("{}{:<{}}", i ? "  " : "", cells[i], width[i]);
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  };
  line(r.columns);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : r.rows) {
    std::vector<std::string> cells;
    for (const auto& v : row) cells.push_back(Text(v));
    line(cells);
  }
}

}  // namespace

int RunSqlCommand(const SqlOptions& o, std::ostream& out) {
  const SqlResult r = RunSql(o.db, o.sql, o.write);
  if (r.columns.empty()) {
    out << fmt::format("{} rows changed\n", r.changes);
    return 0;
  }
  if (o.format == "json") {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& row : r.rows) {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (size_t i = 0; i < row.size(); ++i) object[r.columns[i]] = Json(row[i]);
      rows.push_back(std::move(object));
    }
    out << rows.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (o.format == "csv") {
    std::string header;
    for (size_t i = 0; i < r.columns.size(); ++i) header += (i ? "," : "") + CsvField(r.columns[i]);
    out << header << "\n";
    for (const auto& row : r.rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + CsvField(Text(row[i]));
      out << line << "\n";
    }
  } else {
    WriteTable(r, out);
  }
  return 0;
}

}  // namespace tt
