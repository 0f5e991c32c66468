#ifndef NETVIGIL_CNETLINK_H
#define NETVIGIL_CNETLINK_H
/*
 * CNetlink: out-of-line wrappers around what Swift cannot import from libmnl and the
 * kernel's rtnetlink headers (function-like macros such as NLMSG_OK, RTA_NEXT, MNL_ALIGN,
 * mnl_attr_for_each*), plus flat parsers that turn one rtnetlink message into a plain struct.
 *
 * Messages are passed as `const void *` so this header does not pull the kernel headers into Swift
 * (those clash with glibc's <net/if.h>).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mnl_socket;

/* ---- macro wrappers ------------------------------------------------------------------ */
/** MNL_ALIGN(len). */
size_t cnl_mnl_align(size_t len);
/** MNL_SOCKET_BUFFER_SIZE (page size, at most 8 KiB); use a larger buffer for dumps. */
size_t cnl_mnl_socket_buffer_size(void);
/** NLMSG_HDRLEN. */
size_t cnl_nlmsg_hdrlen(void);
/** NLMSG_ALIGN(len). */
size_t cnl_nlmsg_align(size_t len);
/** NLMSG_LENGTH(len). */
size_t cnl_nlmsg_length(size_t len);
/** NLMSG_OK(nlh, remaining). */
bool cnl_nlmsg_ok(const void *nlh, int remaining);
/** NLMSG_NEXT(nlh, remaining): returns the next header and decrements *remaining. */
const void *cnl_nlmsg_next(const void *nlh, int *remaining);
/** NLMSG_DATA(nlh). */
const void *cnl_nlmsg_data(const void *nlh);
/** nlmsg_type / nlmsg_flags / nlmsg_seq / nlmsg_pid / nlmsg_len of a header. */
uint16_t cnl_nlmsg_type(const void *nlh);
uint16_t cnl_nlmsg_flags(const void *nlh);
uint32_t cnl_nlmsg_seq(const void *nlh);
uint32_t cnl_nlmsg_pid(const void *nlh);
uint32_t cnl_nlmsg_len(const void *nlh);
/** For an NLMSG_ERROR message: the (negative) errno it carries, 0 for an ACK. */
int cnl_nlmsg_error_code(const void *nlh);
/** RTA_OK / RTA_NEXT / RTA_DATA / RTA_PAYLOAD for a struct rtattr. */
bool cnl_rta_ok(const void *rta, int remaining);
const void *cnl_rta_next(const void *rta, int *remaining);
const void *cnl_rta_data(const void *rta);
int cnl_rta_payload(const void *rta);
/** mnl_attr_for_each(attr, nlh, offset) as first/ok/next; `payload_offset` is the family header size. */
const void *cnl_attr_first(const void *nlh, size_t payload_offset);
bool cnl_attr_ok(const void *nlh, const void *attr);
const void *cnl_attr_next(const void *attr);
/** mnl_attr_for_each_nested(attr, nest) as first/ok/next. */
const void *cnl_attr_nested_first(const void *nest);
bool cnl_attr_nested_ok(const void *nest, const void *attr);
uint16_t cnl_attr_type(const void *attr);
uint16_t cnl_attr_payload_len(const void *attr);
const void *cnl_attr_payload(const void *attr);
/** IFLA_RTA(ifi) offset, i.e. sizeof(struct ifinfomsg) aligned; likewise for ifaddrmsg, rtmsg. */
size_t cnl_ifla_offset(void);
size_t cnl_ifa_offset(void);
size_t cnl_rtm_offset(void);

/* ---- sockets ------------------------------------------------------------------------- */
/** NETLINK_ADD_MEMBERSHIP for one multicast group (works for groups above 31). 0 or -errno. */
int cnl_socket_add_membership(struct mnl_socket *nl, unsigned int group);
/** SO_RCVBUFFORCE (root) falling back to SO_RCVBUF; returns the effective size or -errno. */
int cnl_socket_set_rcvbuf(struct mnl_socket *nl, int bytes, bool force);
/** pipe2(O_CLOEXEC|O_NONBLOCK) used to wake the watcher thread. 0 or -errno. */
int cnl_wake_pipe(int fds[2]);
/** Enters the network namespace of `fd` for the calling thread (setns CLONE_NEWNET). 0 or -errno. */
int cnl_setns_net(int fd);

/* ---- request builders (return message length, 0 if `cap` is too small) ----------------- */
/** RTM_GETLINK / RTM_GETADDR / RTM_GETROUTE / RTM_GETRULE dump request. */
size_t cnl_build_dump(void *buf, size_t cap, uint16_t type, uint8_t family, uint32_t seq);
/** RTM_GETROUTE for one destination, like `ip route get ADDR` (RTM_F_LOOKUP_TABLE set). */
size_t cnl_build_getroute(void *buf, size_t cap, uint8_t family, const uint8_t *addr, uint32_t seq);
/** RTM_NEWLINK changing IFF_UP of `ifindex` (like `ip link set dev X up|down`), with NLM_F_ACK. */
size_t cnl_build_setlink_up(void *buf, size_t cap, int32_t ifindex, bool up, uint32_t seq);

/* ---- parsed messages ----------------------------------------------------------------- */
typedef struct cnl_link {
    int32_t index;
    uint32_t flags;        /* IFF_* */
    uint16_t arphrd;       /* ifi_type */
    uint8_t operstate;     /* IF_OPER_*; 0 (UNKNOWN) when absent */
    bool has_wireless;     /* IFLA_WIRELESS present */
    char name[17];
    char kind[32];         /* IFLA_LINKINFO/IFLA_INFO_KIND, "" when absent */
} cnl_link;

typedef struct cnl_addr {
    int32_t index;
    uint8_t family;
    uint8_t prefixlen;
    uint8_t scope;
    uint32_t flags;        /* IFA_F_*, from IFA_FLAGS when present */
    uint8_t address[16];   /* IFA_LOCAL for IPv4 when present, else IFA_ADDRESS */
} cnl_addr;

typedef struct cnl_route {
    uint8_t family;
    uint8_t dst_len;
    uint8_t src_len;
    uint8_t tos;
    uint8_t protocol;
    uint8_t scope;
    uint8_t type;          /* RTN_* */
    uint32_t flags;        /* rtm_flags | flags of the first nexthop (RTNH_F_*) */
    uint32_t table;        /* RTA_TABLE or rtm_table */
    uint32_t priority;     /* RTA_PRIORITY (metric) */
    int32_t oif;           /* RTA_OIF or first nexthop's ifindex, 0 if none */
    int32_t nexthops;      /* number of RTA_MULTIPATH nexthops, 0 if single path */
    bool has_dst;
    bool has_gateway;
    bool has_prefsrc;
    uint8_t gateway_family;
    uint8_t dst[16];
    uint8_t gateway[16];   /* RTA_GATEWAY / RTA_VIA (first nexthop for multipath) */
    uint8_t prefsrc[16];
} cnl_route;

typedef struct cnl_rule {
    uint8_t family;
    uint8_t action;        /* FR_ACT_* */
    uint32_t table;        /* FRA_TABLE or frh.table */
    uint32_t priority;     /* FRA_PRIORITY */
} cnl_rule;

/** Parse RTM_NEWLINK/RTM_DELLINK. 0 on success, -1 if malformed. */
int cnl_parse_link(const void *nlh, cnl_link *out);
/** Parse RTM_NEWADDR/RTM_DELADDR. */
int cnl_parse_addr(const void *nlh, cnl_addr *out);
/** Parse RTM_NEWROUTE/RTM_DELROUTE (also the reply to RTM_GETROUTE). */
int cnl_parse_route(const void *nlh, cnl_route *out);
/** Parse RTM_NEWRULE/RTM_DELRULE. */
int cnl_parse_rule(const void *nlh, cnl_rule *out);

#ifdef __cplusplus
}
#endif
#endif
