extension TargetPage {
    /// The target page's `renderAddresses`: the per-address (or per-path) rows of the target's last tick, as a
    /// summary line and a table (see ``StatusPage/addressScript``); the section stays hidden for one-address targets.
    static let addressesScript = #"""
          function renderAddresses() {
            const target = data.target.target;
            const rows = addressRows(target);
            byId("addresses-section").hidden = !rows.length;
            if (!rows.length) return;
            byId("addresses-title").textContent = (hasInterfaces(rows) ? "Paths" : "Addresses") + " in the last check";
            byId("addresses-summary").replaceChildren(addressSummary(target));
            addressTable(byId("addresses"), rows);
          }
        """#
}
