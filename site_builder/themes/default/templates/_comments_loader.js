(function(s){var d=document.documentElement,o=s.dataset,box=s.querySelector(".comments-box");
function dark(){return(d.dataset.theme||(matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light"))=="dark"}
function load(){var e=document.createElement("script"),a=function(k,v){v&&e.setAttribute(k,v)};
if(o.provider=="disqus"){window.disqus_config=function(){this.page.url=o.url;this.page.identifier=o.path};
e.src="https://"+o.shortname+".disqus.com/embed.js";a("data-timestamp",""+Date.now())}
else if(o.provider=="giscus"){e.src="https://giscus.app/client.js";
[].forEach.call(s.attributes,function(x){/^data-(?!provider|url|path|consent)/.test(x.name)&&a(x.name,x.value)});
a("data-theme",dark()?"dark":"light");a("data-loading","lazy")}
else{e.src="https://utteranc.es/client.js";a("repo",o.repo);a("issue-term",o.issueTerm);a("label",o.label);
a("theme",dark()?"github-dark":"github-light")}
e.async=true;e.crossOrigin="anonymous";box.appendChild(e)}
if(o.consent){var b=s.querySelector(".comments-load");b.onclick=function(){b.remove();load()};return}
if(!("IntersectionObserver"in window))return load();
var seen=new IntersectionObserver(function(es){if(es.some(function(x){return x.isIntersecting})){seen.disconnect();load()}},{rootMargin:"600px"});
seen.observe(s)})(document.getElementById("comments"))
