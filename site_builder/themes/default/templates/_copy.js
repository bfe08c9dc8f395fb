(function(d,o){var s=d.createElement("span"),n=0;s.className="copy-status";s.setAttribute("role","status");(d.querySelector("main")||d.body).appendChild(s);
function text(h){var t=h.querySelector("code").textContent;return h.classList.contains("doctest")?t.split("\n").filter(function(l){
return/^(>>>|\.\.\.)( |$)/.test(l)}).map(function(l){return l.slice(4)}).join("\n")+"\n":t}
d.querySelectorAll(".highlight>pre").forEach(function(p){var h=p.parentNode,r=h.querySelector(".code-bar"),b=d.createElement("button");
if(!r){r=d.createElement("div");r.className="code-bar";h.insertBefore(r,p)}
b.type="button";b.className="code-copy";b.textContent=o.copy;r.appendChild(b);
b.addEventListener("click",function(){navigator.clipboard.writeText(text(h)).then(function(){var k=++n;
b.textContent=s.textContent=o.done;b.classList.add("done");setTimeout(function(){if(k==n)s.textContent="";
b.textContent=o.copy;b.classList.remove("done")},2e3)},function(){getSelection().selectAllChildren(h.querySelector("code"))})})})
})(document,document.currentScript.dataset)
