(function(){function show(){var id;try{id=decodeURIComponent(location.hash.slice(1))}catch(e){return}
var t=id&&document.getElementById(id),moved=false;if(!t)return;
for(var p=t.closest(".tab-panel,details");p;p=p.parentElement.closest(".tab-panel,details")){
if(p.tagName=="DETAILS"){if(!p.open){p.open=true;moved=true}continue}
var i=p.previousElementSibling&&p.previousElementSibling.previousElementSibling;
if(i&&i.type=="radio"&&!i.checked){i.checked=true;moved=true}}
if(moved)t.scrollIntoView()}addEventListener("hashchange",show);show()})()
