// Markdown for GitLab issues (CommonMark 0.30 with GitLab Flavored Markdown's tables):
// escaping of plain text and prose, code spans and fenced blocks, tables, collapsed
// <details> blocks and lists. Vulkan-free; used by the report (report_markdown.hpp) and by
// the triage and experiment summaries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace repro {

// A Markdown table: `header` cells, then one row per entry of `rows` (each as many cells as
// the header). Cells are plain text, escaped for Markdown and HTML; newlines become spaces.
std::string markdownTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
// Plain text escaped for a Markdown paragraph or list item (as in table cells).
std::string markdownText(std::string_view text);

namespace markdown {

// Text outside code: HTML-significant characters become entities, Markdown-active ones
// are backslash-escaped, newlines become spaces. Safe in table cells and list items.
std::string escapeText(std::string_view s);

// Prose with `code spans`: the spans are kept (a '|' in one is still escaped, as table
// cells need), the rest is escaped as escapeText does. An unpaired backtick is escaped.
std::string escapeProse(std::string_view s);

// A fenced code block holding `text` verbatim, `info` after the opening fence ("sh",
// "text"); the fence is longer than any backtick run inside. Ends with a newline.
std::string codeBlock(std::string_view text, std::string_view info = "");

// `text` as a code span for a table cell: nothing in it is read as Markdown, so a kernel
// version's "#1 SMP" cannot become a link to issue 1 (GitLab Flavored Markdown turns a bare
// #N into an issue reference; GitLab docs, "GitLab-specific references"). '|' is escaped, as
// GFM tables need even inside a span; a span holding a backtick is fenced with two and
// padded (CommonMark 0.30, "Code spans"); new lines become spaces.
std::string codeSpan(std::string_view text);

// A table whose cells are already escaped (escapeText, codeSpan). render(): the header row,
// the separator, then each row, as many cells as the header (missing ones blank).
struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    std::string render() const;
};

// A collapsed <details> block (open when `open`): the summary escaped, the body verbatim.
std::string details(std::string_view summary, std::string_view body, bool open = false);

// One "- item" line per item, escaped as text (or as prose with code spans when `prose`);
// "none" when there are none. Ends with a newline.
std::string bulletList(const std::vector<std::string>& items, bool prose = false);

}  // namespace markdown
}  // namespace repro
