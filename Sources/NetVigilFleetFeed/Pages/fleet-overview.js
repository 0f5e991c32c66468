  // The fleet overview: every endpoint's consensus, its key groups, and a grid of endpoints × sites.
  const verdictTone = {up: "ok", partial: "warn", down: "bad", unknown: ""};
  // A URL may break after "/" and "." (not inside a host name's label), so long ones wrap where they read well.
  const endpointLink = (endpoint) => el("a", {class: "endpoint-link", href: "/endpoint?e=" + encodeURIComponent(endpoint)},
    ...endpoint.split(/(?<=[\/.?])/).flatMap((part) => [part, el("wbr", {})]));
  // The overview shows a key's first characters (the endpoint's page has it whole): rows stay a line or two.
  const shortKey = (spki) => spki.length > 22 ? spki.slice(0, 20) + "\u2026" : spki;

  // "48 agents see sha256/A…; 2 in site fra1 see sha256/B… issued by CN=mitmproxy (interception)".
  function keySentence(group) {
    const who = group.majority
      ? plural(group.agents.length, "agent") + " in " + plural(group.sites.length, "site")
      : plural(group.agents.length, "agent") + " in site" + (group.sites.length === 1 ? " " : "s ") + group.sites.join(", ");
    const issuer = group.issuers.length ? " issued by " + group.issuers.join("; ") : "";
    // Only the key may break anywhere: the words around it wrap between words.
    return el("span", {}, who + " see ", el("span", {class: "spki", title: group.spki}, shortKey(group.spki)), issuer);
  }
  function keyList(groups) {
    if (!groups.length) return el("span", {class: "muted"}, dash);
    const list = el("ul", {class: "keys"});
    for (const group of groups) {
      const tone = group.interception ? "bad" : (group.pins === "mismatch" ? "warn" : "");
      list.append(el("li", {class: tone},
        group.interception ? badge("interception", "bad") : null,
        group.pins !== "not_pinned" ? badge("pins " + group.pins.replace("_", " "), pinTone[group.pins] || "warn") : null,
        keySentence(group)));
    }
    return list;
  }

  const page = {
    status: null,
    streams: () => false,
    pollingLabel: "fleet view",
    async load(getJSON) {
      this.status = await getJSON(fetch("/v1/fleet/status", options()));
    },
    render() {
      const status = this.status;
      const s = status.summary;
      byId("summary").textContent = plural(s.endpoints, "endpoint") + ": " + s.up + " up, " + s.partial + " partial, "
        + s.down + " down · " + plural(s.agents, "agent") + ": " + s.healthy + " healthy, " + s.silent + " silent, "
        + s.behind + " behind";
      const alerts = [];
      if (s.down) alerts.push(plural(s.down, "endpoint") + " down");
      if (s.interceptions) alerts.push(plural(s.interceptions, "interception"));
      if (s.silent) alerts.push(plural(s.silent, "silent agent"));
      byId("alerts").hidden = alerts.length === 0;
      byId("alerts").textContent = alerts.join(" · ");

      const body = byId("endpoints").tBodies[0];
      body.replaceChildren(...status.endpoints.map((endpoint) => el("tr", {},
        el("td", {}, endpointLink(endpoint.endpoint)),
        el("td", {}, badge(endpoint.verdict, verdictTone[endpoint.verdict])),
        el("td", {class: "num", "data-label": "up"}, endpoint.up.length),
        el("td", {class: "num", "data-label": "down"}, endpoint.down.length),
        el("td", {class: "wide"}, endpoint.down_sites.join(", ") || dash),
        el("td", {class: "key-groups"}, keyList(endpoint.keys)))));
      if (!status.endpoints.length) {
        body.append(el("tr", {}, el("td", {colspan: 6, class: "muted"},
          "No agent has shipped a result yet: give agents a fleet: section (docs/fleet.md).")));
      }

      // One square per site and endpoint: the worst of its agents.
      const siteOf = {};
      for (const agent of status.agents) siteOf[agent.agent] = agent.site;
      const grid = byId("grid");
      grid.replaceChildren(...status.endpoints.map((endpoint) => {
        const sites = {};
        const mark = (agents, state) => {
          for (const agent of agents) {
            const site = siteOf[agent] || agent;
            (sites[site] = sites[site] || {up: 0, down: 0, skipped: 0, silent: 0})[state] += 1;
          }
        };
        mark(endpoint.up, "up"); mark(endpoint.down, "down"); mark(endpoint.skipped, "skipped"); mark(endpoint.silent, "silent");
        const cells = Object.entries(sites).map(([site, c]) => {
          const state = c.down && !c.up ? "down" : c.down ? "partial" : c.up ? "up" : c.silent && !c.skipped ? "silent" : "";
          const rank = {down: 0, partial: 1, "": 2, silent: 3, up: 4}[state];
          return {site, state, rank, c};
        }).sort((a, b) => a.rank - b.rank || a.site.localeCompare(b.site));
        return el("div", {class: "grid-line"},
          el("div", {class: "grid-endpoint", title: endpoint.endpoint},
            badge(endpoint.verdict, verdictTone[endpoint.verdict]), " ",
            el("a", {href: "/endpoint?e=" + encodeURIComponent(endpoint.endpoint)}, endpoint.endpoint)),
          el("div", {class: "grid-row"}, ...cells.map(({site, state, c}) => el("span", {
            class: "cell " + state, role: "img",
            title: site + ": " + c.up + " up, " + c.down + " down, " + c.skipped + " skipped, " + c.silent + " silent",
            "aria-label": site + " " + (state || "skipped")}))));
      }));
    },
  };
