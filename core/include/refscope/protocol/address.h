// Where a receiver listens, written the way people and environment
// variables pass it (REFSCOPE_CONNECT, `--address`):
//
//   unix:/run/user/1000/refscope-Ab12Cd/live.sock    a Unix-domain socket
//   /run/user/1000/refscope-Ab12Cd/live.sock         the same (an absolute path)
//   tcp:127.0.0.1:40123                              TCP on the loopback interface
//   tcp:localhost:40123                              the same
//
// TCP is limited to IPv4 loopback (127.0.0.0/8): the snapshot travels
// unencrypted and the receiver listens on 127.0.0.1 only; reach another
// machine through an SSH tunnel. Shared by the probe and the receiver.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace refscope::protocol {

// Bytes available for a Unix-domain socket path (sun_path minus the NUL).
inline constexpr size_t kMaxUnixPathBytes = 107;

struct Address {
    enum class Kind { Unix, Tcp };
    Kind kind = Kind::Unix;
    std::string path;          // Unix: the socket's path
    uint32_t ipv4 = 0;         // Tcp: host byte order, 127.x.x.x
    uint16_t port = 0;         // Tcp

    std::string to_string() const;  // canonical "unix:/path" or "tcp:127.0.0.1:port"
};

// Parses an address; on failure returns nothing and sets `error` to one
// sentence ("tcp:10.0.0.1:80: only loopback addresses (127.x.x.x) are allowed").
std::optional<Address> parse_address(std::string_view text, std::string& error);

}  // namespace refscope::protocol
