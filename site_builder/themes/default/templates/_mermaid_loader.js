(function(me){var d=document.documentElement,boxes=[].slice.call(document.querySelectorAll("pre.mermaid"));
boxes.forEach(function(b){b.dataset.source=b.textContent});
function dark(){return(d.dataset.theme||(matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light"))=="dark"}
import(me.dataset.src).then(function(m){var mermaid=m.default,drawn;function draw(){drawn=dark();
mermaid.initialize({startOnLoad:false,securityLevel:"strict",htmlLabels:false,flowchart:{htmlLabels:false},
theme:dark()?"dark":"default"});
boxes.forEach(function(b){b.removeAttribute("data-processed");b.textContent=b.dataset.source});
mermaid.run({nodes:boxes}).catch(function(){})}draw();
function again(){if(dark()!=drawn)draw()}matchMedia("(prefers-color-scheme: dark)").addEventListener("change",again);
addEventListener("click",function(e){if(e.target.closest&&e.target.closest(".theme-toggle"))setTimeout(again)})
})})(document.currentScript)
