(function(d,w){var k="theme",m=w.matchMedia("(prefers-color-scheme: dark)"),t;try{t=localStorage[k]}catch(e){}
if(t=="dark"||t=="light")d.dataset.theme=t;d.classList.add("js");
function dark(){return(d.dataset.theme||(m.matches?"dark":"light"))=="dark"}
function sync(){var b=document.querySelector(".theme-toggle");b&&b.setAttribute("aria-pressed",dark())}
w.addEventListener("DOMContentLoaded",sync);m.addEventListener&&m.addEventListener("change",sync);
w.addEventListener("click",function(e){if(e.target.closest&&e.target.closest(".theme-toggle")){
d.dataset.theme=t=dark()?"light":"dark";try{localStorage[k]=t}catch(e){}sync()}})})(document.documentElement,window)
