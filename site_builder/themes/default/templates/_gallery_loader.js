(function(me){function go(e){var a=e.target.closest&&e.target.closest("a.gallery-link");
if(!a||e.defaultPrevented||e.altKey||e.ctrlKey||e.metaKey||e.shiftKey||(e.type=="click"?e.button:e.key!=" "))return;
e.preventDefault();removeEventListener("click",go);removeEventListener("keydown",go);
var s=document.createElement("script");s.src=me.dataset.src;s.onload=function(){a.click()};
s.onerror=function(){location.href=a.href};document.head.appendChild(s)}
addEventListener("click",go);addEventListener("keydown",go)})(document.currentScript)
