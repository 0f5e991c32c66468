  const TOKEN_KEY = "netvigil.token";
  const POLL_MS = 5000;
  let token = sessionStorage.getItem(TOKEN_KEY);
  let lastEventId = null;
  let stream = null;            // AbortController of the running event stream
  let pollTimer = null;
  let refreshTimer = null;
  let waitingForToken = null;   // resolves when the user submits a token

  function setConnection(state, text) {
    const node = byId("connection");
    node.className = state;
    node.textContent = text;
    document.body.classList.toggle("stale", state === "error" && text.startsWith("disconnected"));
  }

  function headers(extra) {
    const result = Object.assign({}, extra || {});
    if (token) result.Authorization = "Bearer " + token;
    return result;
  }
  const options = () => ({headers: headers(), cache: "no-store"});

  // A 401 for a request sent with `used`: ask again, unless a newer token was entered meanwhile.
  function refused(used) {
    if (used !== token) return;
    askForToken(used ? "The feed refused that token." : "");
  }

  function askForToken(message) {
    if (stream) stream.abort();
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    byId("forget-token").hidden = true;
    byId("content").hidden = true;
    byId("token-form").hidden = false;
    byId("token-message").textContent = message || "";
    byId("token-input").focus();
    setConnection("error", "token needed");
    if (!waitingForToken) {
      let resolve;
      waitingForToken = new Promise((r) => { resolve = r; });
      waitingForToken.resolve = resolve;
    }
  }

  byId("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = byId("token-input").value.trim();
    if (!value) return;
    token = value;
    sessionStorage.setItem(TOKEN_KEY, token);
    byId("token-input").value = "";
    byId("token-form").hidden = true;
    byId("forget-token").hidden = false;
    const waiting = waitingForToken;
    waitingForToken = null;
    if (waiting) waiting.resolve();
    refresh();
  });

  byId("forget-token").addEventListener("click", () => {
    askForToken("Token forgotten.");
  });

  // Why a load failed: the token (already handled) or the feed (the page says so and retries).
  class LoadError extends Error {}

  // The JSON body of a `fetch(...)` promise; a 401 asks for the token, anything else not 2xx is a LoadError.
  async function getJSON(request) {
    const used = token;
    let response;
    try {
      response = await request;
    } catch (error) {
      throw new LoadError("disconnected, retrying");
    }
    if (response.status === 401) {
      refused(used);
      throw new LoadError("token needed");
    }
    if (!response.ok) {
      let message = "";
      try { message = (await response.json()).error || ""; } catch (error) { /* not JSON */ }
      throw new LoadError(new URL(response.url).pathname + " answered HTTP " + response.status + (message ? ": " + message : ""));
    }
    return response.json();
  }

  async function load() {
    try {
      await page.load(getJSON);
    } catch (error) {
      if (!(error instanceof LoadError)) throw error;
      if (!waitingForToken) setConnection("error", error.message);
      return false;
    }
    page.render();
    byId("content").hidden = false;
    const node = byId("connection");
    if (node.className === "error" && node.textContent.startsWith("disconnected")) {
      setConnection("polling", "reconnecting");
    }
    return true;
  }

  // One load at a time; a load asked for while one runs happens once after it.
  let loading = null, again = false;
  async function refresh() {
    if (loading) { again = true; return loading; }
    loading = (async () => {
      do { again = false; await load(); } while (again);
      loading = null;
    })();
    return loading;
  }
  function scheduleRefresh() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 200);
  }
  function startPolling() {
    if (!pollTimer) pollTimer = setInterval(refresh, POLL_MS);
  }
  function stopPolling() {
    if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
  }

  // Server-Sent Events over fetch(): one `id:`/`event:`/`data:` block per blank-line-separated chunk.
  function handleBlock(block) {
    let id = null, data = false;
    for (const line of block.split("\n")) {
      if (line.startsWith("id:")) id = line.slice(3).trim();
      else if (line.startsWith("data:")) data = true;
    }
    if (id !== null) lastEventId = id;
    if (data) scheduleRefresh();
  }

  async function readEvents() {
    const controller = new AbortController();
    stream = controller;
    const extra = {Accept: "text/event-stream"};
    if (lastEventId !== null) extra["Last-Event-ID"] = lastEventId;
    const used = token;
    const response = await openEvents({headers: headers(extra), cache: "no-store", signal: controller.signal});
    if (response.status === 401) { refused(used); return; }
    if (!response.ok || !response.body) throw new Error("v1/events answered HTTP " + response.status);
    stopPolling();
    setConnection("live", "live");
    await refresh();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        handleBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const canStream = typeof ReadableStream === "function" && typeof TextDecoderStream === "function"
    && "body" in Response.prototype;

  async function main() {
    byId("forget-token").hidden = !token;
    if (!(await load()) && waitingForToken) await waitingForToken;
    setInterval(tickAges, 1000);
    if (page.streams && !page.streams()) {
      setConnection("polling", (page.pollingLabel || "public view") + ", updated every " + POLL_MS / 1000 + " s");
      startPolling();
      return;
    }
    if (!canStream) {
      setConnection("polling", "polling every " + POLL_MS / 1000 + " s");
      startPolling();
      return;
    }
    let delay = 1000;
    for (;;) {
      if (waitingForToken) { stopPolling(); await waitingForToken; }
      const started = Date.now();
      try {
        await readEvents();
      } catch (error) {
        // Network error or non-2xx: fall back to polling until the stream is back.
      }
      if (waitingForToken) continue;
      if (Date.now() - started > 30000) delay = 1000;
      setConnection("error", "disconnected, retrying in " + Math.round(delay / 1000) + " s");
      startPolling();
      await sleep(delay);
      delay = Math.min(delay * 2, 30000);
    }
  }
  main();