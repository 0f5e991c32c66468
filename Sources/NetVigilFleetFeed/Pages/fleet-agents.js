  // The agents page: worst first (silent, behind, then healthy), by site.
  const stateTone = {ok: "ok", behind: "warn", silent: "bad"};
  const page = {
    status: null,
    streams: () => false,
    pollingLabel: "fleet view",
    async load(getJSON) {
      this.status = await getJSON(fetch("/v1/fleet/status", options()));
      clockOffset = Date.parse(this.status.time) - Date.now();
    },
    render() {
      const s = this.status.summary;
      byId("summary").textContent = plural(s.agents, "agent") + ": " + s.healthy + " healthy, " + s.silent + " silent, "
        + s.behind + " behind";
      byId("agents").tBodies[0].replaceChildren(...this.status.agents.map((agent) => el("tr", {},
        el("td", {}, agent.agent),
        el("td", {}, agent.site),
        el("td", {}, badge(agent.state, stateTone[agent.state])),
        el("td", {class: "num"}, ageNode("span", agent.last_seen)),
        el("td", {class: "num"}, duration(agent.shipping_lag_seconds)),
        el("td", {class: "num wide"}, agent.down + " / " + agent.endpoints),
        el("td", {class: "wide"}, agent.version))));
    },
  };
