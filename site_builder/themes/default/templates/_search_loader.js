(function(me){var f=me.previousElementSibling;function go(){f.removeEventListener("focusin",go);
f.removeEventListener("pointerdown",go);var s=document.createElement("script");s.type="module";
s.src=me.dataset.src;document.head.appendChild(s)}f.addEventListener("focusin",go);
f.addEventListener("pointerdown",go)})(document.currentScript)
