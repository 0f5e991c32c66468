  // One endpoint: its verdict, the keys each group of agents is served, uptime per site, each agent's result.
  const verdictTone = {up: "ok", partial: "warn", down: "bad", unknown: ""};
  const wanted = new URLSearchParams(location.search).get("e") || "";
  function keySentence(group) {
    const who = group.majority
      ? plural(group.agents.length, "agent") + " in " + plural(group.sites.length, "site")
      : plural(group.agents.length, "agent") + " in site" + (group.sites.length === 1 ? " " : "s ") + group.sites.join(", ");
    const issuer = group.issuers.length ? " issued by " + group.issuers.join("; ") : "";
    // Only the key may break anywhere: the words around it wrap between words.
    return el("span", {}, who + " see ", el("span", {class: "spki"}, group.spki), issuer);
  }
  const page = {
    detail: null,
    streams: () => false,
    pollingLabel: "fleet view",
    async load(getJSON) {
      this.detail = await getJSON(fetch("/v1/fleet/endpoint?endpoint=" + encodeURIComponent(wanted), options()));
      clockOffset = Date.parse(this.detail.time) - Date.now();
    },
    render() {
      const detail = this.detail, status = detail.status;
      document.title = status.endpoint + " · netvigil fleet";
      byId("summary").textContent = plural(detail.results.length, "agent") + " watch it";
      byId("endpoint").textContent = status.endpoint;
      byId("verdict").replaceChildren(badge(status.verdict, verdictTone[status.verdict]), " ",
        status.up.length + " up, " + status.down.length + " down, " + status.skipped.length + " skipped"
        + (status.silent.length ? ", " + status.silent.length + " silent (left out)" : "")
        + (status.down_sites.length ? " · down in " + status.down_sites.join(", ") : ""));
      byId("keys").replaceChildren(status.keys.length ? el("ul", {class: "keys"}, ...status.keys.map((group) =>
        el("li", {class: group.interception ? "bad" : ""},
          group.interception ? badge("interception", "bad") : null,
          group.pins !== "not_pinned" ? badge("pins " + group.pins.replace("_", " "), pinTone[group.pins] || "warn") : null,
          keySentence(group)))) : el("p", {class: "muted"}, "No served certificate (not TLS, or no handshake)."));
      // Worst day first: a site that lost its path is on top, not in alphabetical order among 100 % rows.
      const ratio = (share) => typeof share === "number" ? share : 2;
      const sites = detail.uptime.slice().sort((a, b) => ratio(a.day.ratio) - ratio(b.day.ratio)
        || ratio(a.week.ratio) - ratio(b.week.ratio) || a.site.localeCompare(b.site));
      byId("uptime").tBodies[0].replaceChildren(...sites.map((site) => el("tr", {},
        el("td", {}, site.site),
        el("td", {class: "num"}, site.agents.length),
        el("td", {class: "num", title: site.day.ok + " of " + site.day.total}, percent(site.day.ratio)),
        el("td", {class: "num", title: site.week.ok + " of " + site.week.total}, percent(site.week.ratio)))));
      byId("results").tBodies[0].replaceChildren(...detail.results.map((result) => {
        const state = result.silent ? "silent" : result.outcome === "ok" ? "up" : result.outcome === "skipped" ? "skipped" : "down";
        return el("tr", {},
          el("td", {}, result.agent),
          el("td", {}, result.site),
          el("td", {}, badge(state, {up: "ok", down: "bad", skipped: "warn", silent: ""}[state]),
            result.error_kind ? " " + (kindWords[result.error_kind] || result.error_kind) : ""),
          el("td", {class: "num"}, ageNode("span", result.time)),
          el("td", {class: "num wide"}, milliseconds(result.total_ms)),
          el("td", {class: "wide"}, result.pin_verdict ? badge(result.pin_verdict.replace("_", " "), pinTone[result.pin_verdict]) : dash),
          el("td", {class: "wide spki"}, result.served_spki || dash));
      }));
    },
  };
