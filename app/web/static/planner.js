// The planner page's only script: post the plan form to the REST API, fetch and follow the
// page's part (the job as HTML), and, when the server has API keys, send the key the user
// typed (kept in sessionStorage) in X-API-Key with every request, plots and downloads too.
// Every error of the API is shown as its message.
"use strict";

(() => {
  const KEY = "rwaopt-api-key";
  const POLL_MS = 1000; // a plan's part; sweeps and reproductions (more to read) half as often
  const keysOn = document.body.dataset.keys === "on";
  const part = document.getElementById("part");
  let timer = null;

  const key = () => sessionStorage.getItem(KEY) || "";

  function say(text, where) {
    const box = where || document.getElementById("alert");
    box.textContent = text;
    box.hidden = !text;
  }

  // fetch with the key; a non-2xx answer throws its {code, message} as "code: message".
  async function call(url, options = {}) {
    const headers = Object.assign({}, options.headers);
    if (keysOn && key()) headers["X-API-Key"] = key();
    let response;
    try {
      response = await fetch(url, Object.assign({}, options, { headers }));
    } catch (error) {
      throw Object.assign(new Error(`the service does not answer (${error.message})`), {
        status: 0,
      });
    }
    if (!response.ok) {
      let text = `${response.status} ${response.statusText}`;
      let detail = null;
      try {
        const body = await response.json();
        if (body && body.message) text = `${body.code}: ${body.message}`;
        detail = body && body.detail;
      } catch (_) {
        // not the API's error format: the status line says it
      }
      throw Object.assign(new Error(text), { status: response.status, detail });
    }
    return response;
  }

  async function blobUrl(url) {
    return URL.createObjectURL(await (await call(url)).blob());
  }

  const plots = new Map(); // URL -> blob: URL, so a followed job does not fetch a plot twice

  function failedImage(img, message) {
    const note = document.createElement("p");
    note.className = "error-box";
    note.textContent = `${img.alt}: ${message}`;
    img.replaceWith(note);
  }

  async function showImage(img, url) {
    try {
      if (!plots.has(url)) plots.set(url, await blobUrl(url));
      img.src = plots.get(url);
    } catch (error) {
      failedImage(img, error.message);
    }
  }

  // Plots: with keys, fetched with the key (blob: URLs); without, loaded directly, and a
  // failed one is asked again for the API's message.
  function loadImages(root) {
    for (const img of root.querySelectorAll("img[data-src]")) showImage(img, img.dataset.src);
    for (const img of root.querySelectorAll("img[src]:not([data-src])")) {
      const broken = () =>
        call(img.getAttribute("src")).then(
          () => failedImage(img, "the image does not display"),
          (error) => failedImage(img, error.message),
        );
      if (img.complete && img.naturalWidth === 0) broken();
      else img.addEventListener("error", broken, { once: true });
    }
  }

  function settle() {
    loadImages(part);
    const job = part.querySelector("[data-status]");
    if (job && (job.dataset.status === "queued" || job.dataset.status === "running")) {
      const wait = job.dataset.kind === "plan" ? POLL_MS : 2 * POLL_MS;
      timer = setTimeout(() => load(part.dataset.part, true), wait);
    }
  }

  // Screen readers hear the job's status when it changes (the part is replaced at every poll).
  let announced = null;
  function announce() {
    const status = part.querySelector("#status");
    const live = document.getElementById("announce");
    if (!status || !live || status.textContent === announced) return;
    announced = status.textContent;
    live.textContent = `status: ${announced}`;
  }

  async function load(url, quiet) {
    clearTimeout(timer);
    if (!url) return;
    if (keysOn && !key()) {
      say("this server needs an API key: enter it above");
      return;
    }
    try {
      const html = await (await call(url)).text();
      part.dataset.part = url;
      part.innerHTML = html;
      announce();
      say("");
      settle();
    } catch (error) {
      say(error.message);
      if (!quiet) part.replaceChildren();
      if (error.status === 0 || error.status >= 500) {
        timer = setTimeout(() => load(url, true), 3 * POLL_MS); // the service may come back
      }
    }
  }

  // --- the plan form -------------------------------------------------------------------

  const UNITS = {
    b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12,
    kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
  };
  const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

  // "64 KiB, 1MiB, 4096": as app.presentation.text.parse_size reads them.
  function messageSizes(text) {
    const sizes = [];
    for (const item of text.split(/[,;]/).map((s) => s.trim()).filter(Boolean)) {
      if (item.startsWith("-")) {
        throw new Error(`message sizes: '${item}': a size must be positive (e.g. 1MiB)`);
      }
      const m = /^([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)$/.exec(item);
      const unit = m ? m[2].toLowerCase() : "";
      if (!m || (unit && !(unit in UNITS))) {
        throw new Error(
          `message sizes: '${item}': give bytes, or a number with B, kB, MB, GB, TB or ` +
            "KiB, MiB, GiB, TiB (e.g. 1MiB; any case)",
        );
      }
      // 4.1 MB is 4099999.9999999995 in binary floating point: a whole number of bytes to
      // within rounding is that number (a true fraction goes on, for the server to refuse)
      const size = Number(m[1]) * (UNITS[unit] || 1);
      const whole = Math.round(size);
      sizes.push(Math.abs(size - whole) <= 1e-9 * Math.max(1, size) ? whole : size);
    }
    if (!sizes.length) throw new Error("message sizes: give at least one, e.g. 1 MiB");
    return sizes;
  }

  function put(body, path, value) {
    const names = path.split(".");
    let node = body;
    for (const name of names.slice(0, -1)) node = node[name] = node[name] || {};
    node[names[names.length - 1]] = value;
  }

  function labelOf(input) {
    const span = input.closest("label") && input.closest("label").querySelector("span");
    return span ? span.textContent.trim() : input.name;
  }

  // An error of one input found before sending: the catch below marks and focuses it.
  function inputError(input, message) {
    const error = new Error(message);
    error.field = { input, label: labelOf(input) };
    return error;
  }

  function planBody(form) {
    const body = {};
    for (const input of form.querySelectorAll("[data-kind]")) {
      const raw = input.type === "checkbox" ? input.checked : input.value.trim();
      if (raw === "" || raw === false) continue;
      const kind = input.dataset.kind;
      let value = raw;
      if (kind === "bool") value = true;
      else if (kind === "number" || (kind === "hops" && raw !== "loss_budget")) {
        // said in the form's words for the field, as the server's errors are
        const or = kind === "hops" ? " (or loss_budget)" : "";
        if (!NUMBER.test(raw)) throw inputError(input, `'${raw}' is not a number${or}`);
        value = Number(raw);
        if (!Number.isFinite(value)) throw inputError(input, `'${raw}' is too large a number`);
      }
      put(body, input.name, value);
    }
    const ticked = [...form.querySelectorAll("input[name=algorithms]:checked")].filter(
      (box) => !box.closest("label").hidden,
    );
    body.algorithms = ticked.length ? ticked.map((box) => box.value) : "all";
    body.message_sizes_bytes = messageSizes(form.elements.message_sizes.value);
    return body;
  }

  // The form's input a validation error points at (its `loc`, e.g. ring.nodes or
  // message_sizes_bytes.0), with its label as the page words it; null if none matches.
  function fieldAt(form, detail) {
    for (const input of form.querySelectorAll("[aria-invalid]")) {
      input.removeAttribute("aria-invalid");
    }
    const loc = detail && detail.errors && detail.errors[0] && detail.errors[0].loc;
    if (!Array.isArray(loc)) return null;
    const path = loc.filter((part) => part !== "body").map(String);
    if (path[0] === "message_sizes_bytes") path.splice(0, path.length, "message_sizes");
    for (let n = path.length; n > 0; n -= 1) {
      const input = form.querySelector(`[name="${CSS.escape(path.slice(0, n).join("."))}"]`);
      if (input) return { input, label: labelOf(input) };
    }
    return null;
  }

  function showCollective(form) {
    const chosen = form.elements.collective.value;
    for (const label of form.querySelectorAll("#algorithms label[data-collective]")) {
      label.hidden = label.dataset.collective !== chosen;
    }
  }

  const form = document.getElementById("plan-form");
  if (form) {
    const error = document.getElementById("form-error");
    showCollective(form);
    form.elements.collective.addEventListener("change", () => showCollective(form));
    // Back to this page: the browser restores the fields (the collective too) without a
    // change event, and may restore the page itself with the button still disabled.
    window.addEventListener("pageshow", () => {
      showCollective(form);
      document.getElementById("plan-button").disabled = false;
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      say("", error);
      const button = document.getElementById("plan-button");
      button.disabled = true;
      try {
        if (keysOn && !key()) throw new Error("this server needs an API key: enter it above");
        const response = await call("/api/v1/plans?wait=false", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(planBody(form)),
        });
        const plan = await response.json();
        window.location.assign(`/plans/${encodeURIComponent(plan.id)}`);
      } catch (failure) {
        const field = fieldAt(form, failure.detail) || failure.field;
        say(field ? `${field.label}: ${failure.message}` : failure.message, error);
        if (field) {
          field.input.setAttribute("aria-invalid", "true");
          field.input.focus();
        }
        button.disabled = false;
      }
    });
  }

  // --- the key, the part's links and selects ---------------------------------------------

  const keyForm = document.getElementById("key-form");
  if (keyForm) {
    const state = document.getElementById("key-state");
    state.textContent = key() ? "key set for this tab" : "no key yet";
    keyForm.addEventListener("submit", (event) => {
      event.preventDefault();
      sessionStorage.setItem(KEY, document.getElementById("api-key").value.trim());
      document.getElementById("api-key").value = "";
      state.textContent = "key set for this tab";
      say("");
      load(part && part.dataset.part);
    });
  }

  document.addEventListener("click", async (event) => {
    const link = event.target.closest("a[data-part], a[data-download]");
    if (!link) return;
    if (link.dataset.part) {
      event.preventDefault();
      history.replaceState(null, "", link.href);
      load(link.dataset.part);
    } else if (keysOn) {
      event.preventDefault(); // a plain link cannot send the key: fetch, then save
      try {
        const url = await blobUrl(link.href);
        const save = Object.assign(document.createElement("a"), {
          href: url,
          download: link.dataset.download,
        });
        save.click();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      } catch (error) {
        say(error.message);
      }
    }
  });

  document.addEventListener("change", (event) => {
    const select = event.target.closest("select[data-plot]");
    if (!select) return;
    const img = document.getElementById(select.dataset.plot);
    const url = `${select.dataset.base}?algorithm=${encodeURIComponent(select.value)}`;
    if (keysOn) showImage(img, url);
    else img.src = url;
  });

  if (part) {
    if (part.querySelector("[data-status], .recent, .error-box")) settle();
    else load(part.dataset.part);
  }
})();
