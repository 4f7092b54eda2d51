// The console's colours: dark or light as the system prefers (prefers-color-scheme), or as
// the toggle in the header says, remembered in this browser (localStorage).

const KEY = "firefight.console.theme";

function stored() {
  try {
    const value = localStorage.getItem(KEY);
    return value === "light" || value === "dark" ? value : null;
  } catch {
    return null;
  }
}

const preferred = () => (globalThis.matchMedia?.("(prefers-color-scheme: light)").matches ? "light" : "dark");

// Sets the page's theme and the toggle's state; `theme` null: the system's.
function apply(toggle, theme) {
  const shown = theme || preferred();
  document.documentElement.dataset.theme = shown;
  toggle.setAttribute("aria-pressed", String(shown === "light"));
}

export function startTheme(toggle) {
  apply(toggle, stored());
  globalThis.matchMedia?.("(prefers-color-scheme: light)").addEventListener?.("change", () => apply(toggle, stored()));
  toggle.addEventListener("click", () => {
    const next = document.documentElement.dataset.theme === "light" ? "dark" : "light";
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // A browser that keeps nothing still switches, for this page.
    }
    apply(toggle, next);
  });
}
