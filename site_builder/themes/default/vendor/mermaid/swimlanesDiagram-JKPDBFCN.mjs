import{a as r,b as o}from"./chunk-CLS4B6BI.mjs";import"./chunk-AZZRMDJM.mjs";import"./chunk-RCXAM2GK.mjs";import"./chunk-VTHDQ7BV.mjs";import"./chunk-NUDPKBEF.mjs";import"./chunk-YDMLL4PJ.mjs";import"./chunk-EICP7K5X.mjs";import"./chunk-ZQN7UHIL.mjs";import"./chunk-4OADUZ5Q.mjs";import"./chunk-VRZKL3EH.mjs";import"./chunk-Z6V44ARX.mjs";import"./chunk-5IMINLNL.mjs";import"./chunk-ZNLK7HRR.mjs";import"./chunk-DZP67EKU.mjs";import"./chunk-2NMSUPJH.mjs";import"./chunk-VY2OSTJR.mjs";import"./chunk-STOV2HOB.mjs";import"./chunk-QJSWEUOL.mjs";import"./chunk-H7VHZCWX.mjs";import{a as e}from"./chunk-AQ6EADP3.mjs";var s=e(t=>`${r(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),l=s;var p=o({defaultLayout:"swimlane",styles:l});export{p as diagram};
