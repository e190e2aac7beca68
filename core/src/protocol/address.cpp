// Address parsing (address.h). No name resolution: "localhost" is the only
// name, and it means 127.0.0.1.
#include "refscope/protocol/address.h"

#include <charconv>

namespace refscope::protocol {

namespace {

bool parse_number(std::string_view text, uint32_t max, uint32_t& out) {
    if (text.empty() || text.size() > 5) return false;
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v > max) return false;
    out = v;
    return true;
}

bool parse_ipv4(std::string_view text, uint32_t& out) {
    if (text == "localhost") {
        out = 0x7F000001;
        return true;
    }
    uint32_t v = 0;
    for (int part = 0; part < 4; ++part) {
        const size_t dot = text.find('.');
        const std::string_view piece = part < 3 ? text.substr(0, dot) : text;
        if (part < 3 && dot == std::string_view::npos) return false;
        uint32_t octet = 0;
        if (piece.size() > 3 || !parse_number(piece, 255, octet)) return false;
        v = v << 8 | octet;
        if (part < 3) text.remove_prefix(dot + 1);
    }
    out = v;
    return true;
}

}  // namespace

std::string Address::to_string() const {
    if (kind == Kind::Unix) return "unix:" + path;
    return "tcp:" + std::to_string(ipv4 >> 24) + "." + std::to_string((ipv4 >> 16) & 255) + "." +
           std::to_string((ipv4 >> 8) & 255) + "." + std::to_string(ipv4 & 255) + ":" +
           std::to_string(port);
}

std::optional<Address> parse_address(std::string_view text, std::string& error) {
    const std::string quoted = "'" + std::string(text.substr(0, 200)) + "'";
    Address a;
    if (text.substr(0, 5) == "unix:" || text.substr(0, 1) == "/") {
        a.kind = Address::Kind::Unix;
        a.path = std::string(text.substr(0, 5) == "unix:" ? text.substr(5) : text);
        if (a.path.empty() || a.path[0] != '/') {
            error = quoted + ": a Unix socket address needs an absolute path (unix:/path/to/socket)";
            return std::nullopt;
        }
        if (a.path.size() > kMaxUnixPathBytes) {
            error = quoted + ": the socket path is longer than " + std::to_string(kMaxUnixPathBytes) +
                    " bytes, the limit of Unix-domain sockets";
            return std::nullopt;
        }
        if (a.path.find('\0') != std::string::npos) {
            error = quoted + ": the socket path contains a NUL byte";
            return std::nullopt;
        }
        return a;
    }
    if (text.substr(0, 4) == "tcp:") {
        std::string_view rest = text.substr(4);
        const size_t colon = rest.rfind(':');
        if (colon == std::string_view::npos) {
            error = quoted + ": a TCP address is tcp:127.0.0.1:PORT";
            return std::nullopt;
        }
        uint32_t port = 0;
        if (!parse_number(rest.substr(colon + 1), 65535, port) || port == 0) {
            error = quoted + ": the port must be a number from 1 to 65535";
            return std::nullopt;
        }
        a.kind = Address::Kind::Tcp;
        a.port = static_cast<uint16_t>(port);
        if (!parse_ipv4(rest.substr(0, colon), a.ipv4)) {
            error = quoted + ": the host must be an IPv4 address (127.0.0.1) or localhost";
            return std::nullopt;
        }
        if ((a.ipv4 >> 24) != 127) {
            error = quoted + ": only loopback addresses (127.x.x.x) are allowed; snapshots travel "
                             "unencrypted (use an SSH tunnel to reach another machine)";
            return std::nullopt;
        }
        return a;
    }
    error = quoted + ": expected unix:/path/to/socket, an absolute socket path, or tcp:127.0.0.1:PORT";
    return std::nullopt;
}

}  // namespace refscope::protocol
