// Aligned text columns for the text renderers of every verb.
#pragma once

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace refscope::cli {

// Columns sized to their widest cell; the last column is not padded.
// Cells are measured in bytes, which is close enough for ASCII-heavy labels.
class Table {
public:
    explicit Table(std::vector<bool> right_aligned) : right_(std::move(right_aligned)) {}
    void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
    void print(std::ostream& out, std::string_view indent = "  ") const {
        std::vector<size_t> width(right_.size(), 0);
        for (const auto& cells : rows_) {
            for (size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], cells[c].size());
        }
        for (const auto& cells : rows_) {
            std::string line(indent);
            for (size_t c = 0; c < cells.size(); ++c) {
                const size_t pad = width[c] - cells[c].size();
                const bool last = c + 1 == cells.size();
                if (c > 0) line += "  ";
                if (right_[c]) line.append(pad, ' ');
                line += cells[c];
                if (!right_[c] && !last) line.append(pad, ' ');
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out << line << '\n';
        }
    }

private:
    std::vector<bool> right_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace refscope::cli
