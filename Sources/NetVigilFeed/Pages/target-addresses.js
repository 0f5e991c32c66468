  function renderAddresses() {
    const target = data.target.target;
    const rows = addressRows(target);
    byId("addresses-section").hidden = !rows.length;
    if (!rows.length) return;
    byId("addresses-title").textContent = (hasInterfaces(rows) ? "Paths" : "Addresses") + " in the last check";
    byId("addresses-summary").replaceChildren(addressSummary(target));
    addressTable(byId("addresses"), rows);
  }