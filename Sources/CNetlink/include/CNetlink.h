#ifndef NETVIGIL_CNETLINK_H
#define NETVIGIL_CNETLINK_H
/*
 * CNetlink: out-of-line wrappers around what Swift cannot import from libmnl and the
 * kernel's rtnetlink headers (function-like macros such as NLMSG_OK), the kernel constants Swift
 * needs, plus flat parsers that turn one rtnetlink message into a plain struct.
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

/* ---- macro wrappers (what Swift cannot import: function-like macros, header fields) ---------- */
/** NLMSG_ALIGN(len). */
size_t cnl_nlmsg_align(size_t len);
/** NLMSG_OK(nlh, remaining). */
bool cnl_nlmsg_ok(const void *nlh, int remaining);
/** NLMSG_NEXT(nlh, remaining): returns the next header and decrements *remaining. */
const void *cnl_nlmsg_next(const void *nlh, int *remaining);
/** nlmsg_type / nlmsg_flags / nlmsg_seq / nlmsg_pid / nlmsg_len of a header. */
uint16_t cnl_nlmsg_type(const void *nlh);
uint16_t cnl_nlmsg_flags(const void *nlh);
uint32_t cnl_nlmsg_seq(const void *nlh);
uint32_t cnl_nlmsg_pid(const void *nlh);
uint32_t cnl_nlmsg_len(const void *nlh);
/** For an NLMSG_ERROR message: the (negative) errno it carries, 0 for an ACK. */
int cnl_nlmsg_error_code(const void *nlh);

/* ---- kernel constants -------------------------------------------------------------------
 * Defined in CNetlink.c from <linux/netlink.h>, <linux/rtnetlink.h>, <linux/if.h>, <linux/if_arp.h>,
 * <linux/if_addr.h> and <linux/fib_rules.h>, so Swift uses the kernel's values without importing those
 * headers (they clash with glibc's <net/if.h>). */
/* message types (RTM_*, NLMSG_*) */
extern const uint16_t CNL_RTM_NEWLINK, CNL_RTM_DELLINK, CNL_RTM_GETLINK;
extern const uint16_t CNL_RTM_NEWADDR, CNL_RTM_DELADDR, CNL_RTM_GETADDR;
extern const uint16_t CNL_RTM_NEWROUTE, CNL_RTM_DELROUTE, CNL_RTM_GETROUTE;
extern const uint16_t CNL_RTM_NEWRULE, CNL_RTM_DELRULE, CNL_RTM_GETRULE;
extern const uint16_t CNL_NLMSG_NOOP, CNL_NLMSG_ERROR, CNL_NLMSG_DONE, CNL_NLMSG_OVERRUN;
/* nlmsg_flags (NLM_F_*) */
extern const uint16_t CNL_NLM_F_DUMP_INTR, CNL_NLM_F_REPLACE;
/* multicast groups (enum rtnetlink_groups) */
extern const uint32_t CNL_RTNLGRP_LINK, CNL_RTNLGRP_IPV4_IFADDR, CNL_RTNLGRP_IPV6_IFADDR;
extern const uint32_t CNL_RTNLGRP_IPV4_ROUTE, CNL_RTNLGRP_IPV6_ROUTE, CNL_RTNLGRP_IPV4_RULE, CNL_RTNLGRP_IPV6_RULE;
/* route types (RTN_*), flags (RTM_F_*, RTNH_F_*) and tables (RT_TABLE_*) */
extern const uint8_t CNL_RTN_UNICAST, CNL_RTN_LOCAL, CNL_RTN_BLACKHOLE, CNL_RTN_UNREACHABLE, CNL_RTN_PROHIBIT;
extern const uint32_t CNL_RTM_F_CLONED, CNL_RTNH_F_DEAD, CNL_RTNH_F_LINKDOWN;
extern const uint32_t CNL_RT_TABLE_DEFAULT, CNL_RT_TABLE_MAIN, CNL_RT_TABLE_LOCAL;
/* address flags (IFA_F_*) and rule actions (FR_ACT_*) */
extern const uint32_t CNL_IFA_F_DADFAILED, CNL_IFA_F_TENTATIVE;
extern const uint8_t CNL_FR_ACT_TO_TBL;
/* link flags (IFF_*), operational states (IF_OPER_*), hardware types (ARPHRD_*) */
extern const uint32_t CNL_IFF_UP, CNL_IFF_LOOPBACK, CNL_IFF_POINTOPOINT, CNL_IFF_RUNNING, CNL_IFF_LOWER_UP, CNL_IFF_DORMANT;
extern const uint8_t CNL_IF_OPER_UNKNOWN, CNL_IF_OPER_NOTPRESENT, CNL_IF_OPER_DOWN, CNL_IF_OPER_LOWERLAYERDOWN;
extern const uint8_t CNL_IF_OPER_TESTING, CNL_IF_OPER_DORMANT, CNL_IF_OPER_UP;
extern const uint16_t CNL_ARPHRD_ETHER, CNL_ARPHRD_INFINIBAND, CNL_ARPHRD_RAWIP, CNL_ARPHRD_PPP, CNL_ARPHRD_TUNNEL;
extern const uint16_t CNL_ARPHRD_TUNNEL6, CNL_ARPHRD_LOOPBACK, CNL_ARPHRD_SIT, CNL_ARPHRD_IPGRE, CNL_ARPHRD_IEEE80211;
extern const uint16_t CNL_ARPHRD_IEEE80211_PRISM, CNL_ARPHRD_IEEE80211_RADIOTAP, CNL_ARPHRD_IP6GRE, CNL_ARPHRD_NONE;

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
