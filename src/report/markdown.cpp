// Markdown escaping, code, tables, details and lists (see markdown.hpp).
#include "report/markdown.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace repro {
namespace markdown {

namespace {

// `code` (a code span's text) appended to `out` on one line, each '|' escaped so that a
// table cell does not end inside it.
void appendCode(std::string& out, std::string_view code) {
    for (const char c : code) {
        if (c == '|') out += '\\';
        out += (c == '\n' || c == '\r') ? ' ' : c;
    }
}

}  // namespace

std::string escapeText(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        if (c == '&') {
            out += "&amp;";
        } else if (c == '<') {
            out += "&lt;";
        } else if (c == '>') {
            out += "&gt;";
        } else if (c == '\n' || c == '\r') {
            out += ' ';
        } else {
            if (std::string_view("\\`*|[]~").find(c) != std::string_view::npos) out += '\\';
            out += c;
        }
    }
    return out;
}

std::string escapeProse(std::string_view s) {
    std::string out;
    size_t pos = 0;
    while (pos < s.size()) {
        const size_t open = s.find('`', pos);
        const size_t close = open == std::string_view::npos ? open : s.find('`', open + 1);
        if (close == std::string_view::npos) {
            out += escapeText(s.substr(pos));
            break;
        }
        out += escapeText(s.substr(pos, open - pos));
        appendCode(out, s.substr(open, close - open + 1));
        pos = close + 1;
    }
    return out;
}

std::string codeBlock(std::string_view text, std::string_view info) {
    size_t longest = 0, run = 0;
    for (const char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<size_t>(3, longest + 1), '`');
    std::string out = fence + std::string(info) + "\n" + std::string(text);
    if (out.back() != '\n') out += '\n';
    return out + fence + "\n";
}

std::string Table::render() const {
    std::string out = "|";
    for (const auto& h : header) out += " " + h + " |";
    out += "\n|";
    for (size_t i = 0; i < header.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& row : rows) {
        out += "|";
        for (size_t i = 0; i < header.size(); ++i) {
            const std::string cell = i < row.size() ? row[i] : "";
            out += " " + (cell.empty() ? std::string(" ") : cell) + " |";
        }
        out += "\n";
    }
    return out;
}

std::string details(std::string_view summary, std::string_view body, bool open) {
    return fmt::format("<details{}><summary>{}</summary>\n\n{}\n</details>\n\n", open ? " open" : "",
                       escapeText(summary), body);
}

std::string codeSpan(std::string_view text) {
    std::string inner;
    appendCode(inner, text);
    if (inner.find('`') == std::string::npos) return "`" + inner + "`";
    return "`` " + inner + " ``";
}

std::string bulletList(const std::vector<std::string>& items, bool prose) {
    if (items.empty()) return "none\n";
    std::string out;
    for (const auto& item : items) out += "- " + (prose ? escapeProse(item) : escapeText(item)) + "\n";
    return out;
}

}  // namespace markdown

std::string markdownText(std::string_view text) { return markdown::escapeText(text); }

std::string markdownTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    markdown::Table t;
    for (const auto& h : header) t.header.push_back(markdown::escapeText(h));
    for (const auto& row : rows) {
        std::vector<std::string> cells;
        for (const auto& cell : row) cells.push_back(markdown::escapeText(cell));
        t.rows.push_back(std::move(cells));
    }
    return t.render();
}

}  // namespace repro
