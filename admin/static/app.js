// Reclaim console: progressive enhancement only; every form works without it.
"use strict";
document.addEventListener("click", async (ev) => {
	const btn = ev.target.closest("[data-copy]");
	if (!btn) return;
	const id = btn.getAttribute("data-copy");
	const input = document.getElementById(id);
	const status = document.querySelector('[data-copy-status="' + id + '"]');
	if (!input) return;
	let ok = false;
	try {
		await navigator.clipboard.writeText(input.value);
		ok = true;
	} catch (_) {
		input.select();
		ok = document.execCommand && document.execCommand("copy");
	}
	if (status) status.textContent = ok ? "Copied to the clipboard." : "Select the key and copy it by hand.";
	btn.textContent = ok ? "Copied" : "Copy";
});
