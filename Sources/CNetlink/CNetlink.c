#define _GNU_SOURCE
#include "CNetlink.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/fib_rules.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* ---- macro wrappers ------------------------------------------------------------------ */
size_t cnl_nlmsg_align(size_t len) { return NLMSG_ALIGN(len); }

bool cnl_nlmsg_ok(const void *nlh, int remaining) {
    const struct nlmsghdr *h = nlh;
    return NLMSG_OK(h, remaining);
}

const void *cnl_nlmsg_next(const void *nlh, int *remaining) {
    const struct nlmsghdr *h = nlh;
    int len = *remaining;
    const struct nlmsghdr *next = NLMSG_NEXT(h, len);
    *remaining = len;
    return next;
}

uint16_t cnl_nlmsg_type(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_type; }
uint16_t cnl_nlmsg_flags(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_flags; }
uint32_t cnl_nlmsg_seq(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_seq; }
uint32_t cnl_nlmsg_pid(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_pid; }
uint32_t cnl_nlmsg_len(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_len; }

int cnl_nlmsg_error_code(const void *nlh) {
    const struct nlmsghdr *h = nlh;
    if (h->nlmsg_type != NLMSG_ERROR || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
        return -EBADMSG;
    const struct nlmsgerr *err = NLMSG_DATA(h);
    return err->error;
}

/* ---- kernel constants ---------------------------------------------------------------- */
const uint16_t CNL_RTM_NEWLINK = RTM_NEWLINK, CNL_RTM_DELLINK = RTM_DELLINK, CNL_RTM_GETLINK = RTM_GETLINK;
const uint16_t CNL_RTM_NEWADDR = RTM_NEWADDR, CNL_RTM_DELADDR = RTM_DELADDR, CNL_RTM_GETADDR = RTM_GETADDR;
const uint16_t CNL_RTM_NEWROUTE = RTM_NEWROUTE, CNL_RTM_DELROUTE = RTM_DELROUTE, CNL_RTM_GETROUTE = RTM_GETROUTE;
const uint16_t CNL_RTM_NEWRULE = RTM_NEWRULE, CNL_RTM_DELRULE = RTM_DELRULE, CNL_RTM_GETRULE = RTM_GETRULE;
const uint16_t CNL_NLMSG_NOOP = NLMSG_NOOP, CNL_NLMSG_ERROR = NLMSG_ERROR, CNL_NLMSG_DONE = NLMSG_DONE;
const uint16_t CNL_NLMSG_OVERRUN = NLMSG_OVERRUN;
const uint16_t CNL_NLM_F_DUMP_INTR = NLM_F_DUMP_INTR, CNL_NLM_F_REPLACE = NLM_F_REPLACE;
const uint32_t CNL_RTNLGRP_LINK = RTNLGRP_LINK;
const uint32_t CNL_RTNLGRP_IPV4_IFADDR = RTNLGRP_IPV4_IFADDR, CNL_RTNLGRP_IPV6_IFADDR = RTNLGRP_IPV6_IFADDR;
const uint32_t CNL_RTNLGRP_IPV4_ROUTE = RTNLGRP_IPV4_ROUTE, CNL_RTNLGRP_IPV6_ROUTE = RTNLGRP_IPV6_ROUTE;
const uint32_t CNL_RTNLGRP_IPV4_RULE = RTNLGRP_IPV4_RULE, CNL_RTNLGRP_IPV6_RULE = RTNLGRP_IPV6_RULE;
const uint8_t CNL_RTN_UNICAST = RTN_UNICAST, CNL_RTN_LOCAL = RTN_LOCAL, CNL_RTN_BLACKHOLE = RTN_BLACKHOLE;
const uint8_t CNL_RTN_UNREACHABLE = RTN_UNREACHABLE, CNL_RTN_PROHIBIT = RTN_PROHIBIT;
const uint32_t CNL_RTM_F_CLONED = RTM_F_CLONED, CNL_RTNH_F_DEAD = RTNH_F_DEAD, CNL_RTNH_F_LINKDOWN = RTNH_F_LINKDOWN;
const uint32_t CNL_RT_TABLE_DEFAULT = RT_TABLE_DEFAULT, CNL_RT_TABLE_MAIN = RT_TABLE_MAIN;
const uint32_t CNL_RT_TABLE_LOCAL = RT_TABLE_LOCAL;
const uint32_t CNL_IFA_F_DADFAILED = IFA_F_DADFAILED, CNL_IFA_F_TENTATIVE = IFA_F_TENTATIVE;
const uint8_t CNL_FR_ACT_TO_TBL = FR_ACT_TO_TBL;
const uint32_t CNL_IFF_UP = IFF_UP, CNL_IFF_LOOPBACK = IFF_LOOPBACK, CNL_IFF_POINTOPOINT = IFF_POINTOPOINT;
const uint32_t CNL_IFF_RUNNING = IFF_RUNNING, CNL_IFF_LOWER_UP = IFF_LOWER_UP, CNL_IFF_DORMANT = IFF_DORMANT;
const uint8_t CNL_IF_OPER_UNKNOWN = IF_OPER_UNKNOWN, CNL_IF_OPER_NOTPRESENT = IF_OPER_NOTPRESENT;
const uint8_t CNL_IF_OPER_DOWN = IF_OPER_DOWN, CNL_IF_OPER_LOWERLAYERDOWN = IF_OPER_LOWERLAYERDOWN;
const uint8_t CNL_IF_OPER_TESTING = IF_OPER_TESTING, CNL_IF_OPER_DORMANT = IF_OPER_DORMANT;
const uint8_t CNL_IF_OPER_UP = IF_OPER_UP;
const uint16_t CNL_ARPHRD_ETHER = ARPHRD_ETHER, CNL_ARPHRD_INFINIBAND = ARPHRD_INFINIBAND;
const uint16_t CNL_ARPHRD_RAWIP = ARPHRD_RAWIP, CNL_ARPHRD_PPP = ARPHRD_PPP, CNL_ARPHRD_TUNNEL = ARPHRD_TUNNEL;
const uint16_t CNL_ARPHRD_TUNNEL6 = ARPHRD_TUNNEL6, CNL_ARPHRD_LOOPBACK = ARPHRD_LOOPBACK;
const uint16_t CNL_ARPHRD_SIT = ARPHRD_SIT, CNL_ARPHRD_IPGRE = ARPHRD_IPGRE, CNL_ARPHRD_IEEE80211 = ARPHRD_IEEE80211;
const uint16_t CNL_ARPHRD_IEEE80211_PRISM = ARPHRD_IEEE80211_PRISM;
const uint16_t CNL_ARPHRD_IEEE80211_RADIOTAP = ARPHRD_IEEE80211_RADIOTAP;
const uint16_t CNL_ARPHRD_IP6GRE = ARPHRD_IP6GRE, CNL_ARPHRD_NONE = ARPHRD_NONE;

/* ---- sockets ------------------------------------------------------------------------- */
int cnl_socket_add_membership(struct mnl_socket *nl, unsigned int group) {
    int g = (int)group;
    if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) < 0)
        return -errno;
    return 0;
}

int cnl_socket_set_rcvbuf(struct mnl_socket *nl, int bytes, bool force) {
    int fd = mnl_socket_get_fd(nl);
    if (!force || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0) {
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) < 0)
            return -errno;
    }
    int actual = 0;
    socklen_t len = sizeof(actual);
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &actual, &len) < 0)
        return -errno;
    return actual;
}

int cnl_wake_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
        return -errno;
    return 0;
}

int cnl_setns_net(int fd) {
    if (setns(fd, CLONE_NEWNET) < 0)
        return -errno;
    return 0;
}

/* ---- request builders ---------------------------------------------------------------- */
size_t cnl_build_dump(void *buf, size_t cap, uint16_t type, uint8_t family, uint32_t seq) {
    size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct rtmsg));
    if (cap < need) return 0;
    memset(buf, 0, need);
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    nlh->nlmsg_seq = seq;
    switch (type) {
    case RTM_GETLINK: {
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
        ifi->ifi_family = family;
        break;
    }
    case RTM_GETADDR: {
        struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
        ifa->ifa_family = family;
        break;
    }
    case RTM_GETRULE: {
        struct fib_rule_hdr *frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
        frh->family = family;
        break;
    }
    default: {
        struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
        rtm->rtm_family = family;
        break;
    }
    }
    return nlh->nlmsg_len;
}

size_t cnl_build_getroute(void *buf, size_t cap, uint8_t family, const uint8_t *addr, uint32_t seq) {
    size_t alen = family == AF_INET6 ? 16 : 4;
    size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct rtmsg)) + MNL_ATTR_HDRLEN + MNL_ALIGN(alen);
    if (cap < need) return 0;
    memset(buf, 0, need);
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_GETROUTE;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = seq;
    struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
    rtm->rtm_family = family;
    rtm->rtm_dst_len = (unsigned char)(alen * 8);
    rtm->rtm_flags = RTM_F_LOOKUP_TABLE;
    mnl_attr_put(nlh, RTA_DST, alen, addr);
    return nlh->nlmsg_len;
}

size_t cnl_build_setlink_up(void *buf, size_t cap, int32_t ifindex, bool up, uint32_t seq) {
    size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct ifinfomsg));
    if (cap < need) return 0;
    memset(buf, 0, need);
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_NEWLINK;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    nlh->nlmsg_seq = seq;
    struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_index = ifindex;
    ifi->ifi_change = IFF_UP;
    ifi->ifi_flags = up ? IFF_UP : 0;
    return nlh->nlmsg_len;
}

/* ---- parsers ------------------------------------------------------------------------- */
static void copy_string(char *dst, size_t cap, const struct nlattr *attr) {
    size_t n = mnl_attr_get_payload_len(attr);
    const char *s = mnl_attr_get_payload(attr);
    size_t i = 0;
    for (; i < n && i + 1 < cap && s[i] != '\0'; i++) dst[i] = s[i];
    dst[i] = '\0';
}

int cnl_parse_link(const void *msg, cnl_link *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg))) return -1;
    const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
    out->index = ifi->ifi_index;
    out->flags = ifi->ifi_flags;
    out->arphrd = ifi->ifi_type;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*ifi)) {
        switch (mnl_attr_get_type(attr)) {
        case IFLA_IFNAME:
            copy_string(out->name, sizeof(out->name), attr);
            break;
        case IFLA_OPERSTATE:
            if (mnl_attr_get_payload_len(attr) >= 1) out->operstate = mnl_attr_get_u8(attr);
            break;
        case IFLA_WIRELESS:
            out->has_wireless = true;
            break;
        case IFLA_LINKINFO: {
            const struct nlattr *nested;
            mnl_attr_for_each_nested(nested, attr) {
                if (mnl_attr_get_type(nested) == IFLA_INFO_KIND)
                    copy_string(out->kind, sizeof(out->kind), nested);
            }
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

int cnl_parse_addr(const void *msg, cnl_addr *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg))) return -1;
    const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
    out->index = (int32_t)ifa->ifa_index;
    out->family = ifa->ifa_family;
    out->prefixlen = ifa->ifa_prefixlen;
    out->scope = ifa->ifa_scope;
    out->flags = ifa->ifa_flags;
    size_t alen = ifa->ifa_family == AF_INET6 ? 16 : 4;
    bool have_local = false, have_any = false;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*ifa)) {
        uint16_t type = mnl_attr_get_type(attr);
        uint16_t plen = mnl_attr_get_payload_len(attr);
        if ((type == IFA_LOCAL || type == IFA_ADDRESS) && plen >= alen) {
            if (type == IFA_LOCAL) {
                memcpy(out->address, mnl_attr_get_payload(attr), alen);
                have_local = true;
                have_any = true;
            } else if (!have_local) {
                memcpy(out->address, mnl_attr_get_payload(attr), alen);
                have_any = true;
            }
        } else if (type == IFA_FLAGS && plen >= 4) {
            out->flags = mnl_attr_get_u32(attr);
        }
    }
    return have_any ? 0 : -1;
}

static void parse_via(cnl_route *out, const struct nlattr *attr) {
    /* struct rtvia { __kernel_sa_family_t rtvia_family; __u8 rtvia_addr[]; } */
    uint16_t plen = mnl_attr_get_payload_len(attr);
    const uint8_t *p = mnl_attr_get_payload(attr);
    if (plen < 2) return;
    uint16_t fam;
    memcpy(&fam, p, 2);
    size_t alen = fam == AF_INET6 ? 16 : 4;
    if (plen < 2 + alen) return;
    memcpy(out->gateway, p + 2, alen);
    out->gateway_family = (uint8_t)fam;
    out->has_gateway = true;
}

int cnl_parse_route(const void *msg, cnl_route *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg))) return -1;
    const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
    out->family = rtm->rtm_family;
    out->dst_len = rtm->rtm_dst_len;
    out->src_len = rtm->rtm_src_len;
    out->tos = rtm->rtm_tos;
    out->protocol = rtm->rtm_protocol;
    out->scope = rtm->rtm_scope;
    out->type = rtm->rtm_type;
    out->flags = rtm->rtm_flags;
    out->table = rtm->rtm_table;
    size_t alen = rtm->rtm_family == AF_INET6 ? 16 : 4;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*rtm)) {
        uint16_t type = mnl_attr_get_type(attr);
        uint16_t plen = mnl_attr_get_payload_len(attr);
        switch (type) {
        case RTA_DST:
            if (plen >= alen) { memcpy(out->dst, mnl_attr_get_payload(attr), alen); out->has_dst = true; }
            break;
        case RTA_GATEWAY:
            if (plen >= alen) {
                memcpy(out->gateway, mnl_attr_get_payload(attr), alen);
                out->gateway_family = rtm->rtm_family;
                out->has_gateway = true;
            }
            break;
        case RTA_VIA:
            parse_via(out, attr);
            break;
        case RTA_PREFSRC:
            if (plen >= alen) { memcpy(out->prefsrc, mnl_attr_get_payload(attr), alen); out->has_prefsrc = true; }
            break;
        case RTA_OIF:
            if (plen >= 4) out->oif = (int32_t)mnl_attr_get_u32(attr);
            break;
        case RTA_PRIORITY:
            if (plen >= 4) out->priority = mnl_attr_get_u32(attr);
            break;
        case RTA_TABLE:
            if (plen >= 4) out->table = mnl_attr_get_u32(attr);
            break;
        case RTA_MULTIPATH: {
            const uint8_t *p = mnl_attr_get_payload(attr);
            int remaining = plen;
            const struct rtnexthop *nh = (const struct rtnexthop *)p;
            while (RTNH_OK(nh, remaining)) {
                if (out->nexthops == 0) {
                    if (out->oif == 0) out->oif = nh->rtnh_ifindex;
                    out->flags |= nh->rtnh_flags;
                    int alen2 = (int)nh->rtnh_len - (int)sizeof(*nh);
                    const struct rtattr *rta = RTNH_DATA(nh);
                    while (RTA_OK(rta, alen2)) {
                        if (rta->rta_type == RTA_GATEWAY && RTA_PAYLOAD(rta) >= alen && !out->has_gateway) {
                            memcpy(out->gateway, RTA_DATA(rta), alen);
                            out->gateway_family = rtm->rtm_family;
                            out->has_gateway = true;
                        }
                        rta = RTA_NEXT(rta, alen2);
                    }
                }
                out->nexthops += 1;
                remaining -= (int)RTNH_ALIGN(nh->rtnh_len);
                nh = RTNH_NEXT(nh);
            }
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

int cnl_parse_rule(const void *msg, cnl_rule *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct fib_rule_hdr))) return -1;
    const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
    out->family = frh->family;
    out->action = frh->action;
    out->table = frh->table;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*frh)) {
        uint16_t type = mnl_attr_get_type(attr);
        if (mnl_attr_get_payload_len(attr) < 4) continue;
        if (type == FRA_TABLE) out->table = mnl_attr_get_u32(attr);
        else if (type == FRA_PRIORITY) out->priority = mnl_attr_get_u32(attr);
    }
    return 0;
}
